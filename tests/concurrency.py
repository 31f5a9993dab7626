"""Running test work in several threads at once, for the parts that release the GIL."""

import threading


def run_at_once(work, count=2):
    """Call ``work(k)`` for k in range(count), each in its own thread, all at once; wait
    for all, then raise the first exception a thread raised (a thread's exception would
    otherwise only be printed, and the test could pass without the work done)."""
    errors = []

    def guarded(k):
        try:
            work(k)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=guarded, args=(k,)) for k in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
