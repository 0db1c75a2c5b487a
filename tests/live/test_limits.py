"""Resource limits: what a hostile or broken client sends must not cost the server unbounded memory."""

from __future__ import annotations

import uuid

from livelib import TOPIC, apns_headers, h2_client_for


def tok() -> str:
    return uuid.uuid4().hex + uuid.uuid4().hex


def rss_kib(server) -> int:
    with open(f"/proc/{server.proc.pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


def test_huge_body_is_refused_without_being_kept(server):
    token = tok()
    client = h2_client_for(server.listener)
    try:
        before = rss_kib(server)
        responses = client.run_many([(apns_headers(token), b"x" * (20 * 1024 * 1024)) for _ in range(3)],
                                    concurrency=1, timeout=60)
        assert [r.status for r in responses] == [413, 413, 413]
        assert all(r.json() == {"reason": "PayloadTooLarge"} for r in responses)
        grown = rss_kib(server) - before
        assert grown < 30 * 1024, f"60 MB of bodies grew RSS by {grown} KiB"
    finally:
        client.close()
    record = server.deliveries(token=token)["deliveries"][0]
    assert record["payloadBytes"] == 20 * 1024 * 1024  # counted in full, though not kept
    assert record["reason"] == "PayloadTooLarge"
    assert server.push(tok(), body=b'{"aps":{"alert":"after"}}').status == 200


def test_header_list_over_the_advertised_limit_gets_431(server):
    client = h2_client_for(server.listener)
    try:
        headers = apns_headers(tok()) + [(f"x-filler-{i}", "v" * 200) for i in range(60)]  # ~14 KB > 8000
        response = client.request(headers, b'{"aps":{"alert":"x"}}')
        assert response.status == 431
        again = client.request(apns_headers(tok()), b'{"aps":{"alert":"x"}}')
        assert again.status == 200, "the connection stays usable"
    finally:
        client.close()
