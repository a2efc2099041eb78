"""Following a question's thread: its shape, the names its first hits lead to."""

from __future__ import annotations

import pytest

from privault.retrieval.thread import asks_for_set, fuse_leads, leads


@pytest.mark.parametrize(
    "question",
    [
        "What activities does Melanie partake in?",
        "Which cities has Jon visited?",
        "How many times has Melanie gone to the beach in 2023?",
        "Where has Melanie camped?",
        "What types of pottery have Melanie and her kids made?",
        "In what ways is Caroline participating in the LGBTQ community?",
        "What are some changes Caroline has faced during her transition journey?",
        "What subject have Caroline and Melanie both painted?",
        "What do Jon and Gina have in common?",
        "What musical artists/bands has Melanie seen?",
    ],
)
def test_questions_after_a_set(question: str) -> None:
    assert asks_for_set(question)


@pytest.mark.parametrize(
    "question",
    [
        "When did Caroline go to the LGBTQ support group?",
        "What did Caroline research?",
        "What kind of cake did Maria bake for the party?",
        "Where did Caroline move from 4 years ago?",
        "What is Caroline's relationship status?",
        "Who gave Maria's family money when she was younger?",
        "What emotions did John feel during the party?",
        "What's the best way to cross this bus?",
    ],
)
def test_questions_after_one_fact(question: str) -> None:
    assert not asks_for_set(question)


def test_leads_are_names_and_numbers_the_question_does_not_mention() -> None:
    lines = [
        "John: I went to yoga with Rob last week. Rob loved it!",
        "Maria: Oh nice. I met Jean at the Shelter in 2022.",
        "John: Thanks! Rob says hi.",
    ]
    found = leads(lines, "Who did John go to yoga with?", limit=3)
    assert found[0] == "Rob"  # mentioned most
    assert set(found) <= {"Rob", "Jean", "Shelter", "2022"}
    assert "John" not in found and "Maria" not in found  # asked, or a speaker label
    assert "Oh" not in found and "Thanks" not in found  # sentence openers
    assert len(found) == 3


def test_leads_skip_placeholders_and_sentence_starts() -> None:
    lines = ["Anna: Yesterday <PERSON_1> called. Paris was lovely."]
    assert leads(lines, "Who called?", limit=5) == []


def test_fused_leads_add_by_rank_and_keep_the_first_ranking() -> None:
    first = [(1, 0.5), (2, 0.4), (3, 0.1)]
    fused = fuse_leads(first, [3, 9], weight=1.0, k=5)
    scores = dict(fused)
    assert scores[3] == pytest.approx(0.1 + 1 / 6)
    assert scores[9] == pytest.approx(1 / 7)
    assert scores[1] == 0.5 and scores[2] == 0.4
    assert [item for item, _ in fused] == [1, 2, 3, 9]
