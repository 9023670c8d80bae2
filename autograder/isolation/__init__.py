"""Where student code runs: a kernel fenced in by the OS (sandbox.py launches it; limits.py, fence.py,
pid1.py and standin.py are its parts; lone.py where unshare is refused and the grader is root: the kernel as a
user of its own), forked from a server with torch loaded (zygote.py), kept ready between notebooks of a class
(warm.py), managed and killed by kernels.py.

The bottom layer: imports nothing of the grader above it (course.py at most). zygote.py also runs as a script
and imports nothing of the course at all: what a kernel inherits from it is the interpreter and libraries.
"""
