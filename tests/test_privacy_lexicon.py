"""Everyday words the 1934 dictionary lacks: newer English anywhere, another language's
words only beside that language's function words."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from privault.errors import ModelError
from privault.privacy import lexicon
from privault.privacy.lexicon import LANGUAGES, Lexicon, WordList, derive, dumps, loads
from privault.privacy.names import NameLists

LISTS = NameLists(
    first=frozenset({"pierre", "anna"}),
    last=frozenset({"garcia", "kasse"}),
    words=frozenset({"garden", "the", "and", "pour", "ich", "den"}),
    name_words=frozenset({"anna"}),
)
# Word counts (as film subtitles give them) and spaCy's English log probabilities: "Bombay"
# is written capitalised far more often than not, "retro" is not.
COUNTS = {
    "en": {"the": 900, "and": 800, "pour": 700, "retro": 90, "bombay": 80, "den": 60},
    "fr": {"de": 900, "avec": 800, "pour": 700, "jeudi": 300, "pierre": 200, "lyon": 100},
    "de": {"und": 900, "ich": 800, "den": 700, "kasse": 300, "elternabend": 200},
}
ENGLISH = frozenset({"le", "lunch", "with", "on", "running", "late", "the"})
PROBABILITY = {"retro": -12.0, "Retro": -13.0, "bombay": -16.0, "Bombay": -12.0}


@pytest.fixture
def small_lexicon(monkeypatch: pytest.MonkeyPatch) -> Lexicon:
    monkeypatch.setattr(lexicon, "ENGLISH_RANK", 3)  # "the", "and", "pour"
    counts = {lang: COUNTS.get(lang, {"zzz": 1}) for lang in ("en", *LANGUAGES)}
    return derive(counts, LISTS, ["lyon"], PROBABILITY)


def test_names_places_short_and_dictionary_words_are_left_out(small_lexicon: Lexicon) -> None:
    assert set(small_lexicon.words["en"]) == {"retro"}  # "bombay" is written capitalised
    assert set(small_lexicon.words["fr"]) == {"avec", "jeudi"}
    assert set(small_lexicon.words["de"]) == {"und", "elternabend"}  # "kasse" is a surname


def test_function_words_are_frequent_words_english_does_not_write(small_lexicon: Lexicon) -> None:
    # "pour" is among English's most frequent words, "den" a dictionary word English texts
    # use; "ich" is in the dictionary too, but no English text writes it
    assert small_lexicon.function["fr"] == {"avec", "jeudi", "pierre", "lyon"}
    assert small_lexicon.function["de"] == {"und", "ich", "kasse", "elternabend"}


def test_another_languages_word_is_everyday_only_near_its_function_words() -> None:
    made = Lexicon(
        words={"en": frozenset({"retro"}), "fr": WordList(["jeudi", "rendez", "vous"])},
        function={"fr": frozenset({"avec", "dans"})},
    )
    french = "Rendez-vous jeudi avec le plombier"
    english = "Lunch with Jeudi on Friday"
    assert made.languages_near(french, 12, 17, ENGLISH) == {"fr"}
    assert made.languages_near(english, 11, 16, ENGLISH) == frozenset()
    assert made.is_everyday("jeudi", {"fr"}) and not made.is_everyday("jeudi")
    assert made.is_everyday("rendez-vous", {"fr"}) and not made.is_everyday("rendez-vous")
    assert made.is_everyday("retro")  # newer English: wherever it stands
    far = "avec " + "x" * lexicon.WINDOW + " Jeudi"
    assert made.languages_near(far, len(far) - 5, len(far), ENGLISH) == frozenset()


def test_two_lower_case_words_of_a_language_that_english_lacks_say_it_too() -> None:
    made = Lexicon(
        words={"en": frozenset(), "it": WordList(["chiavi", "ricevuto", "sera", "le"])},
        function={"it": frozenset({"sono"})},
    )
    text = "Ho ricevuto le chiavi da Giulia"
    assert made.languages_near(text, 3, 11, ENGLISH) == frozenset()  # "le" is English
    assert made.languages_near(text, 25, 31, ENGLISH) == {"it"}  # "ricevuto", "chiavi"
    assert made.languages_near("Chiavi Ricevuto: Giulia", 17, 23, ENGLISH) == frozenset()


def test_a_function_word_does_not_say_its_own_language() -> None:
    made = Lexicon(words={"en": frozenset()}, function={"pt": frozenset({"deste", "com"})})
    assert made.languages_near("[09:14] deste: running late", 8, 13, ENGLISH) == frozenset()
    assert made.languages_near("deste com", 0, 5, ENGLISH) == {"pt"}


def test_a_word_list_answers_like_a_set() -> None:
    words = ["jeudi", "jeu", "abend", "zu"]
    listed = WordList(words)
    assert all(word in listed for word in words) and len(listed) == 4
    assert sorted(listed) == sorted(words)
    assert "je" not in listed and "jeudis" not in listed and "jeu\njeudi" not in listed


def test_the_file_text_reads_back_as_the_same_lexicon(small_lexicon: Lexicon) -> None:
    made = small_lexicon
    back = loads(dumps(made))
    assert {lang: set(words) for lang, words in back.words.items()} == {
        lang: set(words) for lang, words in made.words.items()
    }
    assert back.function == made.function


def test_the_shipped_lexicon_knows_newer_and_foreign_words_and_no_listed_name() -> None:
    shipped = lexicon.load_lexicon()
    assert {"retro", "brainstorm", "sunscreen"} <= set(shipped.words["en"])
    assert "jeudi" in shipped.words["fr"] and "habitacion" in shipped.words["es"]
    assert {"und", "ich", "nicht"} <= shipped.function["de"] and "avec" in shipped.function["fr"]
    for word in ("pierre", "garcia", "nietzsche", "bombay", "paris"):
        assert not shipped.is_everyday(word, LANGUAGES)


@pytest.mark.parametrize("content", [b"", b"# only a header\n", b"en words\tretro\n"])
def test_a_broken_lexicon_file_is_a_model_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: bytes
) -> None:
    path = tmp_path / "lexicon.txt.gz"
    path.write_bytes(gzip.compress(content))
    monkeypatch.setattr(lexicon, "LEXICON_FILE", path)
    lexicon.load_lexicon.cache_clear()
    try:
        with pytest.raises(ModelError, match="everyday word list"):
            lexicon.load_lexicon()
        path.write_bytes(b"not gzip")
        lexicon.load_lexicon.cache_clear()
        with pytest.raises(ModelError, match="everyday word list"):
            lexicon.load_lexicon()
    finally:
        lexicon.load_lexicon.cache_clear()
