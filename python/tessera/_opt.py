"""The `tessera-opt` console command of an installed Tessera: runs the tessera-opt binary the wheel
bundles (tessera/_bin/tessera-opt) with the same arguments, exit status and streams."""
import os
import sys


def binary():
    """The bundled tessera-opt; in a checkout (an editable install), build/bin/tessera-opt when
    built; else None."""
    here = os.path.dirname(os.path.abspath(__file__))
    for path in (os.path.join(here, "_bin", "tessera-opt"),
                 os.path.join(os.path.dirname(os.path.dirname(here)), "build", "bin", "tessera-opt")):
        if os.path.isfile(path):
            return path
    return None


def main():
    path = binary()
    if path is None:
        sys.exit("tessera-opt: this Tessera has no bundled tessera-opt (it is not an installed wheel) "
                 "and no build/bin/tessera-opt beside its checkout: run `make build` first")
    os.execv(path, [path] + sys.argv[1:])


if __name__ == "__main__":
    main()
