"""Whether a sentence stands on its own: questions, short ones, discourse markers and leading
pronouns lean on missing context; a leading marker can be dropped."""

from __future__ import annotations

import pytest

from analytics.standalone import leans_on_context, without_marker


@pytest.mark.parametrize(
    ("text", "why"),
    [
        # the examples of issue 17, from podcast segments the project never saw
        ("So you two have built a bunch of AI products yourself.", "discourse_marker"),
        ("And I feel that is going to be creating a lot of value with AI.", "discourse_marker"),
        (
            "This is a very good exercise before you start building any AI product.",
            "pronoun",
        ),
        ("Why does everyone keep saying memory is the bottleneck?", "question"),
        ("It scales.", "short"),
        ("Yeah, and so the cost of inference keeps falling every year.", "discourse_marker"),
        ("They said the cluster would be ready by the spring of next year.", "pronoun"),
        ("That's the reason the margins of inference providers keep shrinking.", "pronoun"),
        # judged on podcast segments: references back to what was said before
        ("I think that's where engineering is probably heading towards.", "back_reference"),
        ("Leaders keep thinking about this aspect of their personal growth.", "back_reference"),
        (
            "The specific things that we've done there, one is just traditional SEO.",
            "back_reference",
        ),
        ("What they really need is experts across every area of the models.", "back_reference"),
        ("By the way, you won't be able to deliver unless you use AI at work.", "discourse_marker"),
        ("Let's start with the planes on the screen right now.", "discourse_marker"),
        (
            'Analysts said, "Ship the prototype by Friday and measure the results."',
            "quoted_or_trailing",
        ),
        ("I remember the first time we trained a model on a single GPU.", "anecdote"),
    ],
)
def test_what_leans_on_context(text: str, why: str) -> None:
    assert leans_on_context(text) == why


@pytest.mark.parametrize(
    "text",
    [
        "Nvidia sold more data-center GPUs than ever in the quarter.",
        "Android is the largest mobile platform with billions of users.",  # not "And"
        "So-called reasoning models cost more to serve than chat models.",  # not "So"
        "There is no moat in model weights alone, only in distribution.",  # existential
        "Token prices for frontier models fell by 80 percent in a year.",
        "I think that engineers will be able to do much more with coding agents.",  # conjunction
        "There is no evidence that scaling laws have stopped working this year.",
        "Prompt engineering is a very human skill that anyone can learn.",
    ],
)
def test_what_stands_alone(text: str) -> None:
    assert leans_on_context(text) is None


def test_without_marker_drops_leading_markers_and_capitalizes() -> None:
    assert without_marker("So, the bottleneck is power for every lab.") == (
        "The bottleneck is power for every lab."
    )
    assert without_marker("Well, yeah, and so the cost keeps falling.") == "The cost keeps falling."
    assert without_marker("I mean, GPUs are scarce this year.") == "GPUs are scarce this year."
    text = "Nvidia sold more GPUs."
    assert without_marker(text) is text
    assert without_marker("So.") == "So."  # nothing would be left
    assert without_marker("So, iPhone sales fell in China this year.") == (
        "iPhone sales fell in China this year."
    )


@pytest.mark.parametrize(
    ("text", "why"),
    [
        # the long-form reading: what a conversation's sentence needs from the talk around it
        ("The same thing happened to every team that shipped on mobile.", "back_reference"),
        ("In that case you should always hire the generalist first.", "back_reference"),
        ("He told the board that growth would come from enterprise deals.", "pronoun"),
        ("The board knew his plan would take three more years to pay off.", "back_reference"),
        ("The market for agents is moving faster here than anywhere else.", "back_reference"),
        ("There are two things that I think about when hiring engineers.", "announced_list"),
        ("I remember when the first version of the product went live.", "anecdote"),
        ("Imagine a world where every engineer has ten agents at work.", "anecdote"),
        ("Great question, the answer depends on the size of the company.", "anecdote"),
        ("It's hard to measure what these tools do for productivity.", "back_reference"),
    ],
)
def test_what_leans_on_context_in_long_form_speech(text: str, why: str) -> None:
    assert leans_on_context(text, strict=True) == why


@pytest.mark.parametrize(
    "text",
    [
        # an expletive "it" opens a claim about the world
        "It's really hard to measure productivity in a large company.",
        "It is important to talk to users before you write any code.",
        "It turns out that most teams never measure the impact of coding agents.",
        # the same X as…, a named person, a list that is given
        "Inference follows the same curve as storage did twenty years ago.",
        "Satya Nadella said his company would double its data-center capacity.",
        "There are three kinds of moats: distribution, data and brand.",
        "Prompt engineering is a very human skill that anyone can learn.",
    ],
)
def test_what_stands_alone_in_long_form_speech(text: str) -> None:
    assert leans_on_context(text, strict=True) is None


def test_the_long_form_reading_is_stricter_only_where_it_says() -> None:
    # the default reading keeps the rule: an expletive "it" still opens with a pronoun
    assert leans_on_context("It's really hard to measure productivity in a large company.") == (
        "pronoun"
    )
    assert leans_on_context("The same thing happened to every team that shipped on mobile.") is None


# --- a report's first sentence (extraction embed-5) ----------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        # a pronoun, a relative "that" or a "there" after the name it stands for: nothing comes
        # before a lead, so it can only point inside it
        "Helios Grid said it has signed agreements to supply 900 megawatts to datacenters.",
        "Corvane launched an agent mode on Thursday that can open pull requests on its own.",
        "Nimbus Labs announced they will stop selling their older inference chips next year.",
        "Tessel is opening a research office in Lyon and plans to hire 40 researchers there.",
        "Regulators said the merger must be notified because it would change the market.",
    ],
)
def test_a_lead_can_name_what_its_pronoun_stands_for(text: str) -> None:
    assert leans_on_context(text, lead=True) is None
    # the default reading, which does not know the sentence comes first, is unchanged
    assert leans_on_context(text) == "back_reference"


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("It has signed agreements to supply 900 megawatts to new datacenters.", "pronoun"),
        ("So Helios Grid said it has signed agreements for 900 megawatts.", "discourse_marker"),
        (
            "I can't believe they shipped the new inference chip again this quarter.",
            "back_reference",
        ),
        ("Helios Grid is betting this aspect of the market will keep growing.", "back_reference"),
        (
            'Helios Grid called the deal "the largest in the history of the grid".',
            "quoted_or_trailing",
        ),
    ],
)
def test_a_lead_still_leans_where_nothing_in_it_is_named(text: str, why: str) -> None:
    assert leans_on_context(text, lead=True) == why
