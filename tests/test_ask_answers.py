"""Answers come back without a restated question, and lists without repeated items."""

from __future__ import annotations

import pytest

from privault.ask.answers import tidy, unrepeated


@pytest.mark.parametrize(
    ("question", "answer", "tidied"),
    [
        (
            "How do Jon and Gina both like to destress?",
            "Jon and Gina both like to destress by dancing.",
            "By dancing.",
        ),
        (
            "Where does Joanna get her ideas for the characters from?",
            "Joanna gets her ideas for the characters from people she knows.",
            "People she knows.",
        ),
        (
            "What are Maria's dogs' names?",
            "Maria's dogs' names are Shadow and Coco.",
            "Shadow and Coco.",
        ),
        (
            "What are Caroline's plans for the summer?",
            "Caroline's plans for the summer include: camping, a talent show",
            "Camping, a talent show",
        ),
    ],
)
def test_an_opening_that_restates_the_question_is_dropped(
    question: str, answer: str, tidied: str
) -> None:
    assert tidy(question, answer) == tidied


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("What did Gina receive from a dance contest?", "A trophy"),
        ("When did Maria's grandmother pass away?", "The week before 6 March 2023"),
        ("What did Maria say about the waterfall?", "Maria said it was magical."),  # 2 words
        ("What is the boiler invoice total?", "The notes do not say."),
        # Nothing but the question: there is no answer to keep instead.
        ("How do Jon and Gina both like to destress?", "Jon and Gina both like to destress."),
        # The question's words, but not in the question's order.
        ("What hobbies does Evan have?", "Evan's hobbies include painting."),
        # An opening that stops short of the question's end: the rest would be a fragment.
        (
            "What memory does the film Up bring to Tim?",
            "The film Up brings back great memories.",
        ),
        ("Who sent the invoice?", "<PERSON_1> sent the invoice."),
    ],
)
def test_an_answer_that_does_not_open_with_the_question_is_kept(question: str, answer: str) -> None:
    assert tidy(question, answer) == answer
    assert tidy(question, f"  {answer}\n") == answer  # only the surrounding blanks go


@pytest.mark.parametrize(
    ("answer", "kept"),
    [
        ("Dune, The Alchemist, The Alchemist, the alchemist.", "Dune, The Alchemist."),
        ("<PERSON_1>, <PERSON_1>, <PERSON_2>", "<PERSON_1>, <PERSON_2>"),
        ("Hiking, camping, hiking, and camping", "Hiking, camping"),
        ("Pottery, painting, pottery!", "Pottery, painting!"),
    ],
)
def test_a_list_names_each_thing_once(answer: str, kept: str) -> None:
    assert unrepeated(answer) == kept


@pytest.mark.parametrize(
    "answer",
    [
        "Luna, Oliver, Bailey",
        "1,000 steps, 2,000 steps",  # a number's comma is no list's
        "Lord of the Rings, The Wheel of Time.\n",
        "The notes do not say.",
        "",
    ],
)
def test_a_list_without_repeats_is_returned_as_written(answer: str) -> None:
    assert unrepeated(answer) == answer
