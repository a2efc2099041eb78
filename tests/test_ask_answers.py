"""Answers come back without a restated question, and lists without repeated items or items
no note holds."""

from __future__ import annotations

import pytest

from privault.ask.answers import grounded, tidy, unrepeated
from privault.ask.briefing import NOT_SAID


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


NOTES = (
    "[note 1 | trusted | written 28 August 2023 | Chat]\n"
    "Caroline: We marched in the pride parade, then went for hikes with <PERSON_1>.\n"
    "Caroline: 1,000 people came to the talent show.\n[end of note 1]"
)


@pytest.mark.parametrize(
    ("answer", "kept"),
    [
        ("Café Rossi, Pride parade, talent show", "Pride parade, talent show"),
        ("Talent show, Café Rossi.", "Talent show."),  # the full stop stays
        ("Hiking, a Café Rossi visit", "Hiking"),  # "hiking" is "hikes" said otherwise
        ("<PERSON_1>, <PERSON_2>", "<PERSON_1>"),  # the notes show one placeholder only
        ("Café <PERSON_1>, Café Rossi", "Café <PERSON_1>"),
        ("1,000 people, Café Rossi", "1,000 people"),  # a number's comma is no list's
        ("Pride parade, with them", "Pride parade, with them"),  # nothing to judge it by
        ("Pride parade, Rossi with her", "Pride parade"),  # "with", "her": in any text
    ],
)
def test_a_list_loses_the_items_no_note_holds(answer: str, kept: str) -> None:
    assert grounded(answer, NOTES) == kept


def test_the_question_grounds_an_item_too() -> None:
    shown = f"{NOTES}\nWhat did Caroline do at Café Rossi?"
    assert grounded("Café Rossi, Blue Door", shown) == "Café Rossi"


@pytest.mark.parametrize(
    "answer",
    [
        "Pride parade, talent show",
        "The notes do not say.",
        "With them, and her",  # no word to judge it by
        "",
    ],
)
def test_a_list_whose_items_are_all_grounded_or_unjudged_is_returned_as_written(
    answer: str,
) -> None:
    assert grounded(answer, NOTES) == answer


@pytest.mark.parametrize("answer", ["Café Rossi, <PERSON_2>", "Blue Door.", "Rossi, with them"])
def test_a_list_no_note_holds_an_item_of_was_made_up_and_is_not_given(answer: str) -> None:
    assert grounded(answer, NOTES) == NOT_SAID
