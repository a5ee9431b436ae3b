"""Generate the protobuf modules from strata's ``.proto`` definitions (grpcio-tools' protoc).

    python -m engine.plugin.proto.generate

The generated ``tfplugin5_pb2.py`` and ``tfplugin6_pb2.py`` are committed, so running strata
needs only the protobuf runtime; tests/engine/plugin/test_proto.py regenerates them into a
temporary directory and fails when the committed ones differ.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
PROTOS = ("tfplugin5.proto", "tfplugin6.proto")


def generate(out_dir: Path) -> None:
    """Write ``tfplugin5_pb2.py`` and ``tfplugin6_pb2.py`` into ``out_dir``."""
    from grpc_tools import protoc  # a build-time dependency only

    for name in PROTOS:
        rc = protoc.main(["protoc", f"-I{HERE}", f"--python_out={out_dir}", str(HERE / name)])
        if rc != 0:
            raise RuntimeError(f"protoc failed on {name} (exit {rc})")


if __name__ == "__main__":
    generate(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
