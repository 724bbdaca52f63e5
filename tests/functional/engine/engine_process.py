"""Run one engine as its own process (for the multi-process tests).

``python -m tests.functional.engine.engine_process <db url> <transport
url> <exchange> <resume interval>``: start an EngineService on that
database and bus and serve until SIGTERM (or die on SIGKILL).
"""

from __future__ import annotations

import signal
import sys
import threading
import uuid
import warnings

warnings.filterwarnings("ignore", message=r"\s*Eventlet is deprecated")


def main() -> None:
    from keel_heat_core.db.database import Database
    from keel_heat_core.rpc import transport as shared
    from keel_heat_core.service.db_backend import DatabaseBackend
    from keel_heat_core.service.engine import EngineService
    from tests.functional.engine.stacks import KEY, make_conf

    url, transport_url, exchange, interval = sys.argv[1:5]
    prefix = sys.argv[5] if len(sys.argv) > 5 else ""
    conf = make_conf(url, transport_url, exchange)
    db = Database(url, encryption_key=KEY)
    engine = EngineService(
        conf,
        str(uuid.uuid4()),
        transport=shared.get_transport(conf),
        backend=DatabaseBackend(conf, db),
        resume_interval=float(interval),
        topic_prefix=prefix,
    )
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    engine.start()
    print(f"ENGINE {engine.engine_id}", flush=True)
    done.wait()
    engine.stop()
    engine.wait()
    shared.cleanup()


if __name__ == "__main__":
    main()
