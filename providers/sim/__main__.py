"""``python -m providers.sim``: look at and tamper with a ledger from outside strata.

    ls LEDGER [--type TYPE]   the live objects, one JSON line each: id, type, name, token, attributes
    rm LEDGER ID...           delete objects behind strata's back (drift); unknown ids are an error
    compact LEDGER            rewrite the ledger with only its live objects
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from .ledger import Ledger, LedgerMissing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m providers.sim", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p_ls = sub.add_parser("ls", help="print the live objects as JSON lines")
    p_ls.add_argument("ledger")
    p_ls.add_argument("--type", default=None, help="only objects of this resource type")
    p_rm = sub.add_parser("rm", help="delete objects out of band")
    p_rm.add_argument("ledger")
    p_rm.add_argument("ids", nargs="+")
    p_compact = sub.add_parser("compact", help="rewrite the ledger with only its live objects")
    p_compact.add_argument("ledger")
    args = parser.parse_args(argv)
    try:
        with Ledger(args.ledger, create=False) as ledger:
            if args.command == "ls":
                out = sys.stdout
                for obj in ledger.live():
                    if args.type is None or obj.type == args.type:
                        out.write(json.dumps(obj.to_json(), ensure_ascii=False) + "\n")
                return 0
            if args.command == "rm":
                missing = []
                with ledger.locked_blocking():
                    for id in args.ids:
                        if ledger.get(id) is None:
                            missing.append(id)
                        else:
                            ledger.append({"op": "delete", "id": id, "by": "python -m providers.sim rm"})
                for id in missing:
                    print(f"no live object {id} in {ledger.path}", file=sys.stderr)
                return 1 if missing else 0
            before, after = ledger.compact()
            print(f"compacted {ledger.path}: {before} -> {after} bytes, {len(ledger.objects)} live objects",
                  file=sys.stderr)
            return 0
    except LedgerMissing:
        print(f"no ledger at {args.ledger}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away (ls | head): not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 0
    sys.exit(code)
