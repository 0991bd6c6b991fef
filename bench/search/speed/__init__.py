"""Search speed: the engine at scale against exact and LanceDB references, the query encoder,
and search over HTTP."""
