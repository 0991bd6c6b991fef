"""The LLM same-event judge (bench/stories/llm_judge.py) against a local OpenAI-compatible
server (``tests.llm_server``: a test double for the external endpoint aimi does not run): the
request, the verdicts read from the answers, failures left out, and the weighted figures."""

from __future__ import annotations

from types import ModuleType

import pytest

from bench.stories import llm_judge
from pipelines.llm import LlmEndpoint
from tests.llm_server import Received, Reply, answer, llm_server, refused_url


@pytest.fixture(scope="module")
def judge() -> ModuleType:
    return llm_judge


def post(title: str, text: str = "") -> dict[str, str]:
    return {"title": title, "text": text, "author": "someone", "date": "2025-01-20"}


def same_when_both_name_r1(received: Received) -> Reply:
    """Says one event when both posts' titles name R1; answers a pair about an outage with a
    server error, and a pair about a joke with no JSON."""
    user = received.source_text()
    if "outage" in user:
        return Reply(status=400)
    if "joke" in user:
        return answer("I think so")
    titles = [line for line in user.splitlines() if line.startswith("Post ")]
    return answer({"same_event": all("R1" in t for t in titles)})


def test_the_verdicts_come_from_the_answers_and_failures_say_why(judge: ModuleType) -> None:
    pairs = [
        (post("DeepSeek R1 released"), post("R1 pricing")),
        (post("DeepSeek R1 released"), post("Qwen 2.5 released")),
        (post("an outage"), post("R1 again")),
        (post("a joke"), post("R1 once more")),
    ]
    with llm_server(same_when_both_name_r1) as server:
        endpoint = LlmEndpoint(base_url=server.base_url, model="m", retries=0, max_concurrency=2)
        said = judge.judge(endpoint, pairs)
    assert said == [(True, ""), (False, ""), (None, "http_error"), (None, judge.NO_VERDICT)]
    body = server.received[0].body
    assert body["temperature"] == 0 and body["model"] == "m"
    assert body["response_format"]["json_schema"]["schema"]["required"] == ["same_event"]
    assert "same event or development" in body["messages"][0]["content"]
    assert server.peak_in_flight <= 2


def test_the_model_sees_what_the_hand_reader_saw(judge: ModuleType) -> None:
    # the date, the title and 700 characters of text: no author
    user = judge.messages(post("A title", "x" * 2000), post("B title"))[1]["content"]
    assert "someone" not in user and "x" * 700 in user and "x" * 701 not in user
    assert user.startswith("Post 1 (2025-01-20): A title")


def test_an_endpoint_that_fails_the_first_request_stops_the_run(judge: ModuleType) -> None:
    endpoint = LlmEndpoint(base_url=refused_url(), model="m", retries=0)
    with pytest.raises(SystemExit, match="unreachable"):
        judge.judge(endpoint, [(post("a"), post("b")), (post("c"), post("d"))])


def test_the_posts_order_is_seeded_not_the_files(judge: ModuleType) -> None:
    pairs = [(post(f"first {i}"), post(f"second {i}")) for i in range(20)]

    def firsts(seed: int) -> list[str]:
        seen: list[str] = []

        def record(received: Received) -> Reply:
            seen.append(received.source_text().splitlines()[0])
            return answer({"same_event": False})

        with llm_server(record) as server:
            endpoint = LlmEndpoint(base_url=server.base_url, model="m", max_concurrency=1)
            judge.judge(endpoint, pairs, seed=seed)
        return seen

    once, again, other = firsts(1), firsts(1), firsts(2)
    flipped = sum("second" in line for line in once)
    assert 0 < flipped < 20
    assert once == again and once != other


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('{"same_event": true}', True),
        ('```json\n{"same_event": false}\n```', False),
        ('{"same_event": "yes"}', None),
        ("[true]", None),
        ("no", None),
    ],
)
def test_a_verdict_is_a_boolean_or_none(
    judge: ModuleType, content: str, expected: bool | None
) -> None:
    assert judge.verdict(content) is expected


def test_weighted_figures_weigh_each_pair(judge: ModuleType) -> None:
    # hand yes/model yes (weight 10), hand yes/model no (weight 1), hand no/model yes (weight 1)
    out = judge.weighted_figures([True, True, False], [True, False, True], [10.0, 1.0, 1.0])
    assert out["precision"] == pytest.approx(10 / 11)
    assert out["recall"] == pytest.approx(10 / 11)
    assert judge.weighted_figures([False], [False], [1.0])["f1"] == 0.0
