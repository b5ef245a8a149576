"""The event-stream parser against the WHATWG rules, fed whole and byte by byte."""

from __future__ import annotations

import pytest

from jobgen.runtime.http.events import EventParser, ServerSentEvent


def parse(text: str, *, split: int | None = None) -> list[ServerSentEvent[str]]:
    parser = EventParser()
    step = split or len(text) or 1
    events: list[ServerSentEvent[str]] = []
    for start in range(0, len(text), step):
        events += parser.feed(text[start : start + step])
    return events + parser.close()


@pytest.mark.parametrize("split", [None, 1, 2, 3])
def test_fields_comments_and_multi_line_data(split: int | None) -> None:
    stream = (
        ": a comment, then an event\n"
        "event: progress\n"
        "id: 7\n"
        "data: first line\n"
        "data:second line\n"
        "retry: 2500\n"
        "\n"
        'data: {"a": 1}\n'
        "\n"
    )
    assert parse(stream, split=split) == [
        ServerSentEvent("first line\nsecond line", "progress", "7", 2500),
        ServerSentEvent('{"a": 1}', "message", "7", None),  # the last id carries over
    ]


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
@pytest.mark.parametrize("split", [None, 1])
def test_every_line_ending(newline: str, split: int | None) -> None:
    stream = newline.join(["data: a", "", "data: b", "", ""])
    assert [e.data for e in parse(stream, split=split)] == ["a", "b"]


def test_a_cr_at_the_end_of_a_chunk_waits_for_its_lf() -> None:
    parser = EventParser()
    assert parser.feed("data: x\r") == []
    assert parser.feed("\n\r\n") == [ServerSentEvent("x")]


def test_events_without_data_are_not_dispatched_and_a_cut_event_is_dropped() -> None:
    stream = "event: ping\n\nid: 3\n\nretry: x\ndata\n\ndata: cut off"
    events = parse(stream)
    assert events == [ServerSentEvent("", "message", "3")]  # `data` alone is empty data


def test_a_leading_bom_only_a_single_space_and_ids_with_null() -> None:
    parser = EventParser()
    events = parser.feed("\ufeffdata:  two spaces\nid: a\0b\n\n")
    assert events == [ServerSentEvent(" two spaces")]
    assert parser.last_event_id is None
