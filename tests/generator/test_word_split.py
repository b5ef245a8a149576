"""Run-together words in spec names: which runs of letters are split, and how.

Names are split with the word counts shipped in generator/model/ngrams (wordsegment's,
sorted and searched in place); splitting must give what wordsegment gives, so the names of
an SDK do not change with how the counts are stored.
"""

from __future__ import annotations

import random

import pytest
import wordsegment  # type: ignore[import-untyped]

from jobgen.model import names, segment
from tests import ngrams

# Common words run together; four of these runs (340 letters) span two search chunks
# (250 letters each).
SENTENCE = "Listeveryjobofthisaccountandcanceltheonesthatarestillrunningafterthedeadlinehaspassed"
SENTENCE_SNAKE = (
    "list_every_job_of_this_account_and_cancel_the_ones_that_are_still_running_after_the_"
    "deadline_has_passed"
)
# Stripe's request bodies: long runs of camel words around an unknown one.
STRIPE_BODY = (
    "PostCustomersCustomerSubscriptionsSubscriptionExposedIdBodyPaymentSettings"
    "PaymentMethodOptionsKonbiniAny"
)
STRIPE_BODY_SNAKE = (
    "post_customers_customer_subscriptions_subscription_exposed_id_body_payment_settings_"
    "payment_method_options_konbini_any"
)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        # Run-together common words are split (camel words around them are kept).
        ("CreateanAPIkeyforaserviceaccount", "create_an_api_key_for_a_service_account"),
        ("Retrievethelistofjobsforthisaccount", "retrieve_the_list_of_jobs_for_this_account"),
        ("getallthejobsforaserviceaccount", "get_all_the_jobs_for_a_service_account"),
        ("listallitemsinthebucket", "list_all_items_in_the_bucket"),
        (SENTENCE, SENTENCE_SNAKE),
        (SENTENCE * 4, "_".join([SENTENCE_SNAKE] * 4)),
        # A word the counts do not know, that reads as fewer than three words, is kept.
        ("TranscriptWebhookNotification", "transcript_webhook_notification"),
        ("microdeposits", "microdeposits"),
        # Brand names stay as the spec spells them: a split would hold an uncommon word.
        ("kubernetesclusterupgrade", "kubernetesclusterupgrade"),
        (
            "CancelTheJobsOfThisAccountWithoutnotice",
            "cancel_the_jobs_of_this_account_withoutnotice",
        ),
        # Some common words make up the run, but its most probable split holds an uncommon
        # one ("ban contact"): kept.
        ("Listthebancontactpaymentsofthisaccount", "listthebancontactpaymentsofthisaccount"),
        # Short runs are never split.
        ("Modstamp", "modstamp"),
        ("thisisatest", "thisisatest"),
        ("Readtheinvoicesforthemonth", "read_the_invoices_for_the_month"),
        # Long runs of camel words around an unknown one (Stripe's request bodies).
        (STRIPE_BODY, STRIPE_BODY_SNAKE),
        ("AccountCapabilitiesKonbiniPayments", "account_capabilities_konbini_payments"),
        ("PaymentMethodOptionsKonbini", "payment_method_options_konbini"),
    ],
)
def test_run_together_words_are_split_only_into_common_words(name: str, expected: str) -> None:
    assert names.snake(name) == expected


def test_split_words_keep_the_camel_words_around_them() -> None:
    split = ["create", "an", "api", "key", "for", "a", "service", "account"]
    assert names.words("GetJob_CreateanAPIkeyforaserviceaccount-v2") == ["Get", "Job", *split, "v2"]
    assert names.pascal("TranscriptWebhookNotification") == "TranscriptWebhookNotification"
    assert names.constant("listallitemsinthebucket") == "LIST_ALL_ITEMS_IN_THE_BUCKET"


@pytest.fixture(scope="module")
def reference() -> wordsegment.Segmenter:
    segmenter = wordsegment.Segmenter()
    segmenter.load()
    return segmenter


def _samples() -> list[str]:
    """Run-together words from common to rare, random letters, and texts of several
    search chunks."""
    rng = random.Random(15)
    with open(wordsegment.Segmenter.UNIGRAMS_FILENAME, encoding="utf-8") as reader:
        ranked = [line.split("\t")[0] for line in reader]
    texts = ["a", "thisisatest", "konbini", "z" * 30, "webhooknotification"]
    for top in (300, 5_000, 100_000, len(ranked)):
        for _ in range(20):
            texts.append("".join(rng.choice(ranked[:top]) for _ in range(rng.randint(1, 8))))
    letters = "abcdefghijklmnopqrstuvwxyz"
    texts += ["".join(rng.choices(letters, k=rng.randint(1, 40))) for _ in range(20)]
    texts.append("".join(rng.choices(ranked[:5_000], k=60)))
    return texts


def test_segment_gives_wordsegments_split(reference: wordsegment.Segmenter) -> None:
    for text in _samples():
        assert segment.segment(text) == reference.segment(text), text
    assert segment.segment("") == []


def test_count_is_wordsegments_count(reference: wordsegment.Segmenter) -> None:
    rng = random.Random(15)
    ordered = sorted(reference.unigrams)
    # The first and last lines of the file, and a sample between.
    words = [ordered[0], ordered[-1], "the", *rng.sample(ordered, 2_000)]
    for word in words:
        assert segment.count(word) == reference.unigrams[word], word
    for unknown in ("konbini", "webhooknotification", "", "The", "naïve", "x" * 30, "zzzzzzzzzzz"):
        assert segment.count(unknown) == 0, unknown


@pytest.mark.parametrize("text", ["Webhook", "web hook", "web-hook", "naïve", "h2o"])
def test_segment_takes_lower_case_letters_only(text: str) -> None:
    with pytest.raises(ValueError, match="lower-case ASCII letters"):
        segment.segment(text)


def test_shipped_counts_are_built_from_wordsegment() -> None:
    built = ngrams.build()
    for name, data in built.items():
        assert (ngrams.NGRAMS / name).read_bytes() == data, name
    lines = built["unigrams.tsv"].splitlines()
    counts = sorted((int(line.split(b"\t")[1]) for line in lines), reverse=True)
    # The common-word thresholds of names: the 5,001st and 50,001st counts.
    assert (names._COMMON_SHORT, names._COMMON) == (counts[5_000], counts[50_000])
