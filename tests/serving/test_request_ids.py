"""Request ids: 32 hex characters, never repeated within a process or across a fork."""

from __future__ import annotations

import os
import re

from serving.errors import new_request_id

HEX_ID = re.compile(r"[0-9a-f]{32}")


def test_ids_are_hex_and_distinct() -> None:
    ids = [new_request_id() for _ in range(10_000)]
    assert all(HEX_ID.fullmatch(i) for i in ids)
    assert len(set(ids)) == len(ids)


def test_a_forked_child_draws_its_own_prefix() -> None:
    parent = new_request_id()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report its next id and leave at once
        os.write(write, new_request_id().encode())
        os._exit(0)
    os.close(write)
    child = os.read(read, 64).decode()
    os.close(read)
    os.waitpid(pid, 0)
    assert HEX_ID.fullmatch(child)
    # same prefix and counter after a fork would give the child the parent's next id
    assert child[:16] != parent[:16]
