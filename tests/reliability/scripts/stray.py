"""A command step that leaves processes behind (strays.sh), by MODE:

  orphan   writes FILES files into its output folder, one every 50 ms, and
           exits 0; on SIGTERM it goes on writing for 1.5 s more (as a
           script that saves a checkpoint when it is stopped), then exits
  stubborn writes a file every 50 ms until it is killed: SIGTERM does not
           stop it
  many     writes FILES files at once and exits 0: its supervisor then
           commits a large folder
  daemons  starts four daemons that outlive it unless the runtime ends
           them: after setsid, after a double fork, through subprocess in a
           new session (which closes every inherited descriptor), and after
           setsid with every descriptor closed; then writes FILES files and
           exits 0

Each process writes its pid into MARKER (a folder) as KIND-pid-PID (the
rank: rank, then term when SIGTERM reached it and exit when it ends by
itself), and the writer its progress into MARKER/written.

  python3 stray.py MODE MARKER FILES OUT
"""
import os
import signal
import subprocess
import sys
import time

mode, marker, files, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
os.makedirs(out, exist_ok=True)


def note(kind, pid=None):
    pid = pid or os.getpid()
    with open(os.path.join(marker, f"{kind}-pid-{pid}"), "w", encoding="utf-8") as f:
        f.write(str(pid))


def sleep_forever(kind):
    note(kind)
    while True:
        time.sleep(1)


def daemon_setsid():
    if os.fork() == 0:
        os.setsid()
        sleep_forever("setsid")


def daemon_double_fork():
    if os.fork() == 0:
        if os.fork() == 0:
            sleep_forever("doublefork")
        os._exit(0)  # the middle one exits: the grandchild is an orphan


def daemon_closed():
    if os.fork() == 0:
        os.setsid()
        os.closerange(0, 1024)  # no lock, no pipe: nothing of the step but its ancestry
        sleep_forever("closed")


def write(i):
    with open(os.path.join(out, f"part-{os.getpid()}-{i:04d}"), "w", encoding="utf-8") as f:
        f.write(f"{i}\n")
    with open(os.path.join(marker, "written"), "w", encoding="utf-8") as f:
        f.write(f"{i}\n")


note("rank")
if mode == "many":
    for i in range(files):
        with open(os.path.join(out, f"part-{i:05d}"), "w", encoding="utf-8") as f:
            f.write(f"{i}\n")
    note("exit")
    sys.exit(0)
if mode == "daemons":
    daemon_setsid()
    daemon_double_fork()
    proc = subprocess.Popen(  # pylint: disable=consider-using-with
        [sys.executable, "-c", "import os, sys, time; "
         "open(os.path.join(sys.argv[1], 'popen-pid-%d' % os.getpid()), 'w').write(str(os.getpid())); "
         "time.sleep(1000)", marker],
        start_new_session=True)
    daemon_closed()
    # Every daemon has said who it is before the step ends.
    kinds = ("setsid", "doublefork", "popen", "closed")
    for _ in range(500):
        names = os.listdir(marker)
        if all(any(n.startswith(k + "-pid-") for n in names) for k in kinds):
            break
        time.sleep(0.01)
    for i in range(files):
        write(i)
    sys.exit(0)

stop_at = None


def on_term(_sig, _frame):
    global stop_at  # pylint: disable=global-statement
    note("term")
    if mode == "orphan" and stop_at is None:
        stop_at = time.time() + 1.5


signal.signal(signal.SIGTERM, on_term)
i = 0
while (stop_at is None and (mode == "stubborn" or i < files)) or (stop_at is not None and time.time() < stop_at):
    write(i)
    i += 1
    time.sleep(0.05)
note("exit")
sys.exit(0)
