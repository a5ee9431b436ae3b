"""What a user asks of an operation (:class:`Options`: the command line's settings) and the state
it works on, its lock held for the operation (:func:`open_state`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from types import TracebackType

from engine.backend import local
from engine.graph.limits import Limits
from engine.provider.registry import Providers
from engine.state.store import StateStore


@dataclass
class Options:
    chdir: str = "."
    state_path: str | None = None
    """``-state``: the state file, overriding the configured backend; None: the backend's (see
    :mod:`engine.backend.local`)."""
    workspace_name: str | None = None
    """The local backend's workspace whose state this run works on (its ``terraform.workspace``);
    None: the current one (``TF_WORKSPACE``, else the one ``workspace select`` recorded)."""
    variables: dict[str, str] = field(default_factory=dict)
    var_args: list[tuple[str, str]] = field(default_factory=list)
    """("var", "NAME=VALUE") and ("var-file", PATH) in command-line order (used with ``variables``)."""
    parallelism: int = 10
    refresh: bool = True
    fail_fast: bool = False
    fsync: bool = True
    replace: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()
    refresh_only: bool = False
    generate_config_out: str | None = None
    """``plan -generate-config-out=FILE``: configuration is generated for import targets without any."""
    limits: Limits = field(default_factory=Limits)
    on_signals: bool = False
    """SIGINT/SIGTERM stop an apply gracefully (the command line sets this; a library caller has
    its own signal handling)."""
    lock: bool = True
    """Take the state lock (``-lock=false``: don't; another operation may then write at the same time)."""
    lock_timeout: float = 0.0
    """Seconds to wait for another operation's lock (``-lock-timeout``); 0: fail at once."""

    _state_file: str | None = field(default=None, init=False, repr=False)

    def state_file(self) -> str:
        """The state file this run works on: ``state_path``, else the workspace's under the
        configuration's ``backend "local"`` (decided once per run)."""
        if self._state_file is None:
            self._state_file = local.state_file(self.chdir, self.state_path, self.workspace_name)
        return self._state_file

    def workspace(self) -> str:
        """The workspace this run works in, as ``terraform.workspace`` gives it."""
        return self.workspace_name if self.workspace_name is not None else local.current_workspace(self.chdir)


def open_state(opts: Options, operation: str, providers: Providers, *, writes: bool = True,
               on_wait: Callable[[], None] | None = None) -> OperationState:
    """``async with open_state(opts, "OperationTypeApply", providers) as store``: see :class:`OperationState`."""
    return OperationState(opts, operation, providers, writes=writes, on_wait=on_wait)


class OperationState:
    """The state for one operation, its lock held for the whole block and released when it ends,
    however it ends: the one place an operation takes the lock. ``operation`` is recorded in the
    lock (terraform's names: OperationTypePlan, OperationTypeApply, state-rm, ...); ``writes=False``
    for an operation that only reads (plan). ``on_wait``: called once a wait for another holder
    (``-lock-timeout``) has lasted long enough to say so.

    A class rather than a generator: leaving it allocates next to nothing, which matters when the
    operation is unwinding because memory ran out."""

    def __init__(self, opts: Options, operation: str, providers: Providers, *, writes: bool = True,
                 on_wait: Callable[[], None] | None = None) -> None:
        self.store = StateStore(opts.state_file(), providers.dynamic_attrs, fsync=opts.fsync)
        self.workspace = opts.workspace()
        self.lock = self.store.locked(operation, enabled=opts.lock, timeout=opts.lock_timeout, writes=writes,
                                      on_wait=on_wait)

    async def __aenter__(self) -> StateStore:
        from engine.lang.scope import set_workspace

        set_workspace(self.workspace)  # terraform.workspace: what this operation evaluates
        await self.lock.acquire()
        return self.store

    async def __aexit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        self.lock.release()


