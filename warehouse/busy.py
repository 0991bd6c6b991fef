"""``LockBusy``, in a module of its own: the local locks (``warehouse.locks``) and the store's
lease (``warehouse.lease``), which the build lock takes together, both raise it, and neither
may import the other at the top (the lock reaches the lease lazily, and only when a store is
configured)."""


class LockBusy(RuntimeError):
    """The lock is held elsewhere and the caller asked not to wait."""
