"""Header blocks on one connection: the transport hands a request whose regular header fields
repeat the previous block's the previous block's list itself, and builds any other field by field.
Every record must still hold exactly the fields its own request sent, in order."""

from __future__ import annotations

import uuid

from livelib import TOPIC, apns_headers, h2_client_for

BODY = b'{"aps":{"alert":"blocks"}}'


def tok() -> str:
    return uuid.uuid4().hex + uuid.uuid4().hex


def recorded_fields(server, token):
    records = server.deliveries(token=token, limit=100)["deliveries"]
    return [[(h["name"], h["value"]) for h in r["headers"]] for r in records], records


def test_each_request_keeps_its_own_fields_as_blocks_repeat_and_change(server):
    token = tok()
    base = [("apns-topic", TOPIC), ("apns-push-type", "alert"), ("apns-priority", "10"), ("x-a", "1")]
    blocks = [
        base,
        base,                                        # the same block
        base[:2] + [("apns-priority", "5")] + base[3:],  # one value changed mid-block
        base,                                        # back to the first
        base[:3],                                    # shorter: the first fields only
        base[:3],
        base + [("x-b", "2")],                       # longer
        base,
        [("apns-push-type", "alert"), ("apns-topic", TOPIC)] + base[2:],  # same fields, another order
        base,
        [],                                          # no regular field at all (topic missing)
        base,
    ]
    client = h2_client_for(server.listener)
    try:
        for fields in blocks:
            client.request(apns_headers(token, topic=None, push_type=None, extra=fields), BODY)
    finally:
        client.close()
    got, records = recorded_fields(server, token)
    assert got == [list(b) for b in blocks]
    assert [r["status"] for r in records] == [200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 400, 200]
    assert records[2]["priority"] == 5 and records[3]["priority"] == 10
    assert records[10]["reason"] == "MissingTopic"


def test_a_block_cut_short_by_the_header_list_limit_does_not_leave_stale_fields(server):
    """A block that changes a field and then goes over MAX_HEADER_LIST_SIZE (431) never becomes
    the previous block, though it changed what the connection remembers: the next block sending
    that new value must be recorded with it, not with the older block's."""
    token = tok()
    first = [("apns-topic", TOPIC), ("apns-push-type", "alert")]
    changed = [("apns-topic", TOPIC + ".other"), ("apns-push-type", "alert")]
    filler = [(f"x-filler-{i}", "v" * 200) for i in range(60)]  # ~14 KB, over the 8,000 advertised
    client = h2_client_for(server.listener)
    try:
        statuses = [client.request(apns_headers(token, topic=None, push_type=None, extra=first), BODY).status,
                    client.request(apns_headers(token, topic=None, push_type=None, extra=changed + filler), BODY).status,
                    client.request(apns_headers(token, topic=None, push_type=None, extra=changed), BODY).status,
                    client.request(apns_headers(token, topic=None, push_type=None, extra=first), BODY).status]
    finally:
        client.close()
    assert statuses[1] == 431
    got, records = recorded_fields(server, token)
    kept = [r for r in records if r["status"] != 0]
    assert [r["topic"] for r in kept][-2:] == [TOPIC + ".other", TOPIC], [r["topic"] for r in records]
    assert got[-2:] == [changed, first]
