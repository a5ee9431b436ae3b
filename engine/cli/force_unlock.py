"""``strata force-unlock [-force] LOCK_ID``: terraform's, for a lock whose holder is stuck.

The lock's file is removed if ``LOCK_ID`` is its holder's ID (the error a locked-out command
prints shows it). The holder is not stopped: like terraform's remote backends, this only lets
the next operation take a new lock, so it is for a holder known to be stuck. A holder that died
already holds nothing: its lock went with it, and the next operation takes the state as usual.
terraform's own local backend refuses ("Local state cannot be unlocked by another process");
strata's lock file can be removed safely, because a holder only ever removes its own file.
"""

from __future__ import annotations

import sys

from engine.cli.args import Args, UsageError, workspace_from
from engine.state.lock import UnlockError, force_unlock

_PROMPT = ("Do you really want to force-unlock?\n"
           "  strata will remove the lock on the state.\n"
           "  This will allow local strata commands to modify this state, even though it\n"
           "  may still be in use. Only 'yes' will be accepted to confirm.\n\n"
           "  Enter a value: ")
_DONE = ("strata state has been successfully unlocked!\n\n"
         "The state has been unlocked, and strata commands should now be able to\n"
         "obtain a new lock on the state.\n")


def cmd_force_unlock(a: Args) -> int:
    if len(a.positional) + len(a.command) - 1 != 1:
        raise UsageError("Expected a single argument: LOCK_ID\nUsage: strata [global options] force-unlock "
                         "[-force] LOCK_ID")
    lock_id = (a.command[1:] + a.positional)[0]
    path = workspace_from(a).state_file()
    try:
        if not a.flags.get("force"):
            force_unlock(path, lock_id, dry_run=True)  # a wrong ID or no lock: refused before asking
            sys.stdout.write(_PROMPT)
            sys.stdout.flush()
            if sys.stdin.readline().strip() != "yes":
                sys.stdout.write("force-unlock cancelled.\n")
                return 1
            sys.stdout.write("\n")
        force_unlock(path, lock_id)
    except UnlockError as exc:
        sys.stderr.write(f"{exc}\n")
        return 1
    sys.stdout.write(_DONE)
    return 0
