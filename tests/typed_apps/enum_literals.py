"""Enum fields accept their members and their documented values."""

from __future__ import annotations

from sume_sdk.models import CreateJobRequest, CreateJobRequestMode, TextInput

TEXT = TextInput(type="text", text="hello")

by_member = CreateJobRequest(input=TEXT, mode=CreateJobRequestMode.POLLING)
by_value = CreateJobRequest(input=TEXT, mode="webhook", webhook_url="https://example.com/hook")
mode: CreateJobRequestMode | None = by_value.mode or None
assert mode is CreateJobRequestMode.WEBHOOK
