"""`python -m tessera.profiler show trace.json` prints the summary tree of a saved profile;
`python -m tessera.profiler validate trace.json` checks a trace against the Trace Event rules of
tessera.profiler.trace.validate_trace. Exit status: 0 on success, 1 when the trace is invalid or
is not a Tessera profile, 2 when the file cannot be read or is not JSON."""

import argparse
import json
import sys


def _load(path):
    """The parsed JSON of `path`, or (None, message)."""
    try:
        with open(path) as f:
            return json.load(f), None
    except FileNotFoundError:
        return None, f"{path}: no such file"
    except IsADirectoryError:
        return None, f"{path}: is a folder, not a trace file"
    except PermissionError:
        return None, f"{path}: permission denied"
    except UnicodeDecodeError as e:
        return None, f"{path}: not a text file ({e.reason})"
    except json.JSONDecodeError as e:
        return None, f"{path}: not JSON ({e.msg} at line {e.lineno} column {e.colno})"


def show(path, max_depth=None):
    from .summary import render
    from .trace import validate_trace
    obj, err = _load(path)
    if err:
        return 2, err
    try:
        validate_trace(obj)
    except ValueError as e:
        return 1, f"{path}: not a valid trace: {e}"
    tree = obj.get("otherData", {}).get("tessera", {}).get("tree") if isinstance(obj, dict) else None
    if tree is None:
        return 1, (f"{path}: a valid trace, but not one saved by tessera.profiler (otherData.tessera.tree "
                   f"is missing), so there is no summary to show")
    try:
        return 0, render(tree, max_depth=max_depth)
    except (ValueError, KeyError, TypeError) as e:
        return 1, f"{path}: the summary tree in otherData.tessera is damaged ({type(e).__name__}: {e})"


def validate(path):
    from .trace import validate_trace
    obj, err = _load(path)
    if err:
        return 2, err
    try:
        n = validate_trace(obj)
    except ValueError as e:
        return 1, f"{path}: invalid: {e}"
    return 0, f"{path}: valid trace, {n} events"


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tessera.profiler",
                                     description="Read traces saved by tessera.profiler.")
    sub = parser.add_subparsers(dest="command", required=True)
    p_show = sub.add_parser("show", help="print the summary tree of a saved profile")
    p_show.add_argument("trace", help="a .json trace written by tessera.profiler.stop() or Profile.save()")
    p_show.add_argument("--depth", type=int, default=None, help="print at most this many levels")
    p_val = sub.add_parser("validate", help="check a trace against the Trace Event format rules")
    p_val.add_argument("trace")
    args = parser.parse_args(argv)
    if args.command == "show":
        rc, text = show(args.trace, args.depth)
    else:
        rc, text = validate(args.trace)
    print(text if rc == 0 else f"error: {text}", file=sys.stdout if rc == 0 else sys.stderr)
    return rc


if __name__ == "__main__":
    sys.exit(main())
