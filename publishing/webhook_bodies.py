"""The bodies a watchlist's batch can take besides aimi's own JSON: ``slack``, a message any
Slack-compatible incoming webhook takes (Slack, Mattermost, Microsoft Teams' workflows), with a
plain ``text`` fallback and Block Kit ``blocks`` listing the signals (docs/notifications.md)."""

from __future__ import annotations

from typing import Any

# Slack refuses a message with more than 50 blocks and a section text over 3,000 characters
_MAX_SIGNAL_BLOCKS = 45
_SECTION_CHARS = 3_000
_HEADER_CHARS = 150
_CENTRAL_KEYS = ("thesis", "synopsis")


def _mrkdwn(text: str) -> str:
    """``text`` safe inside Slack's mrkdwn: its three control characters escaped."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _signal_block(card: dict[str, Any]) -> dict[str, Any]:
    central = next((card[key] for key in _CENTRAL_KEYS if card.get(key)), "")
    url = str(card.get("url") or "").replace("|", "%7C").replace(">", "%3E")
    title = _mrkdwn(str(card.get("title") or card.get("signal_id")))
    text = f"*<{url}|{title}>*" if url else f"*{title}*"
    text += f" · {_mrkdwn(str(card.get('domain') or ''))}"
    if central:
        text += f"\n{_mrkdwn(str(central))}"
    return {"type": "section", "text": {"type": "mrkdwn", "text": text[:_SECTION_CHARS]}}


def slack_body(batch: dict[str, Any]) -> dict[str, Any]:
    """The Slack-compatible form of an aimi batch body (``text`` + ``blocks``): a header, one
    section per signal (title linked to its source, domain, central statement), and a context
    line with the batch id and the change-feed cursor to read the rest from."""
    cards: list[dict[str, Any]] = batch["signals"]
    kind = f"{batch['digest']} digest" if batch.get("digest") else "new or changed"
    headline = f"aimi · {batch['watchlist']}: {len(cards)} {kind} signal(s)"
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": headline[:_HEADER_CHARS]}}
    ]
    blocks += [_signal_block(card) for card in cards[:_MAX_SIGNAL_BLOCKS]]
    notes = [f"batch `{batch['batch_id']}`"]
    if len(cards) > _MAX_SIGNAL_BLOCKS:
        notes.insert(0, f"and {len(cards) - _MAX_SIGNAL_BLOCKS} more")
    notes.append(f"the change feed goes on at cursor `{batch['next_cursor']}`")
    blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": " · ".join(notes)}]})
    lines = [headline] + [f"• {card.get('title')} {card.get('url') or ''}" for card in cards[:20]]
    return {"text": "\n".join(lines), "blocks": blocks}
