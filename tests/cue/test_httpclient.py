"""cue.llm.httpclient: the server backend's JSON over http.client, against stubs on 127.0.0.1."""
from __future__ import annotations

import socket
import time

import pytest
from stubs import OpenAIStub

from cue.llm.httpclient import Client, HttpError, HttpTimeout


def test_post_and_get_json():
    with OpenAIStub(reply="Read the docs.") as stub, Client(timeout=5) as client:
        answer = client.post_json(stub.url + "/v1/chat/completions", {"model": "m", "n": "é"})
        listing = client.get(stub.url + "/v1/models")
        sent = stub.requests[0]
    assert answer.status == 200
    assert answer.json()["choices"][0]["message"]["content"] == "Read the docs."
    assert listing.json()["data"][0]["id"] == "stub"
    assert sent["body"] == {"model": "m", "n": "é"}
    assert sent["headers"]["content-type"] == "application/json"


def test_an_error_status_is_an_answer_not_an_exception():
    with OpenAIStub(status=503) as stub:
        response = Client(timeout=5).post_json(stub.url + "/v1/chat/completions", {})
    assert response.status == 503 and "stub error" in response.text


def test_nothing_listening_is_named():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(HttpError, match=r"^connection refused \(ConnectionRefusedError\)$"):
        Client(timeout=5).get(f"http://127.0.0.1:{port}/v1/models")


@pytest.mark.parametrize("url", ["localhost:8080/v1/models", "ftp://127.0.0.1/v1", "http://"])
def test_not_an_http_url(url):
    with pytest.raises(HttpError, match="not an http"):
        Client(timeout=5).get(url)


def test_a_stalled_server_times_out():
    with OpenAIStub(delay=5) as stub:
        t0 = time.monotonic()
        with pytest.raises(HttpTimeout, match=r"timed out \(TimeoutError\)"):
            Client(timeout=0.5).post_json(stub.url + "/v1/chat/completions", {})
        assert time.monotonic() - t0 < 3
