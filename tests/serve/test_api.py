"""The JSON API: what a script sees, and clear 4xx errors that leave the state as it was."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from paucity.markers import get
from paucity.serve import MarkerExplorer, markers_app

from .conftest import GENES, small_adata

JSON = {"content-type": "application/json"}


@pytest.fixture(scope="module")
def shared_explorer():
    return MarkerExplorer(small_adata(), "cell_type")


@pytest.fixture
def client(explorer):
    return TestClient(markers_app(explorer))


def test_state_lists_selection_candidates_and_objectives(client):
    state = client.get("/api/state").json()
    assert state["selection"] == [] and state["method"] == "cife" and state["target"] is None
    assert state["groups"] == ["B cell", "Monocyte", "T cell"]
    assert {"mim", "jmi", "cife", "mrmr"} <= set(state["methods"])
    assert len(state["candidates"]) == len(GENES)
    assert client.get("/api/state?n=3").json()["candidates"] == state["candidates"][:3]


def test_a_session_of_changes(client):
    top = client.get("/api/state").json()["candidates"][0]["gene"]
    answer = client.post("/api/add", json={"gene": top}).json()
    assert answer["state"]["selection"] == [{"gene": top, "score": pytest.approx(answer["result"]["score"])}]
    assert top not in [c["gene"] for c in answer["state"]["candidates"]]
    client.post("/api/add", json={"gene": "ACTB"})
    state = client.post("/api/reorder", json={"genes": ["ACTB", top]}).json()["state"]
    assert [s["gene"] for s in state["selection"]] == ["ACTB", top]
    state = client.post("/api/objective", json={"method": "JMI", "target": "T cell"}).json()["state"]
    assert (state["method"], state["target"]) == ("jmi", "T cell")
    taken = client.post("/api/take", json={"k": 2}).json()["result"]["taken"]
    assert len(taken) == 2
    state = client.post("/api/remove", json={"gene": "ACTB"}).json()["state"]
    assert [s["gene"] for s in state["selection"]] == [top, *taken]
    state = client.post("/api/undo", json={}).json()["state"]
    assert [s["gene"] for s in state["selection"]] == ["ACTB", top, *taken]
    assert [e["action"] for e in state["history"]] == ["add", "add", "reorder", "objective", "take", "take", "remove", "undo"]


def test_gene_search(client):
    assert client.get("/api/genes?q=cd3").json() == {"genes": ["CD3E", "CD3D"]}
    assert client.get("/api/genes").json() == {"genes": []}


def test_exports(client, h5ad_path):
    import anndata

    client.post("/api/take", json={"k": 3})
    csv = client.get("/api/export.csv")
    assert csv.headers["content-type"].startswith("text/csv")
    assert "attachment" in csv.headers["content-disposition"]
    names = [line.split(",")[0] for line in csv.text.splitlines()[1:]]
    answer = client.post("/api/export/h5ad", json={}).json()["result"]
    assert answer["path"] == str(h5ad_path) and answer["n_genes"] == 3
    assert get(anndata.read_h5ad(h5ad_path))["names"].tolist() == names


def test_save_asks_before_replacing_another_selection(client, explorer, h5ad_path):
    import anndata

    other = TestClient(markers_app(MarkerExplorer(anndata.read_h5ad(h5ad_path), "cell_type", path=h5ad_path)))
    client.post("/api/add", json={"gene": "LYZ"})
    assert client.post("/api/export/h5ad", json={}).status_code == 200
    other.post("/api/add", json={"gene": "MS4A1"})
    refused = other.post("/api/export/h5ad", json={})
    assert refused.status_code == 409
    answer = refused.json()
    assert answer["key"] == "paucity_markers" and answer["suggested_key"] == "paucity_markers_2"
    assert "already holds another selection" in answer["error"] and "\n" not in answer["error"]
    saved = other.post("/api/export/h5ad", json={"key": answer["suggested_key"]}).json()
    assert saved["result"]["key"] == "paucity_markers_2" and saved["state"]["key"] == "paucity_markers_2"
    back = anndata.read_h5ad(h5ad_path)
    assert get(back)["names"].tolist() == ["LYZ"] and get(back, "paucity_markers_2")["names"].tolist() == ["MS4A1"]
    assert other.post("/api/export/h5ad", json={"key": "paucity_markers", "overwrite": True}).status_code == 200
    assert get(anndata.read_h5ad(h5ad_path))["names"].tolist() == ["MS4A1"]
    for body, match in [({"overwrite": "yes"}, "overwrite must be true or false"), ({"key": 3}, "key must be"),
                        ({"key": "a/b"}, "without slashes"), ({"key": ""}, "1 to 100 characters")]:
        response = other.post("/api/export/h5ad", json=body)
        assert response.status_code == 400 and match in response.json()["error"], body


def test_explain_and_version(client, explorer):
    version = client.get("/api/version").json()["version"]
    client.post("/api/add", json={"gene": "LYZ"})
    assert client.get("/api/version").json()["version"] == version + 1 == client.get("/api/state").json()["version"]
    candidate = client.get("/api/state").json()["candidates"][0]
    why = client.get("/api/explain", params={"gene": candidate["gene"]}).json()
    assert why["gene"] == candidate["gene"] and why["score"] == pytest.approx(candidate["score"])
    assert [t["gene"] for t in why["terms"]] == ["LYZ"]
    assert why["base"] + why["terms"][0]["contribution"] == pytest.approx(why["score"])
    assert client.get("/api/explain").status_code == 400
    assert "is selected" in client.get("/api/explain?gene=LYZ").json()["error"]
    assert client.get("/api/version").json()["version"] == version + 1  # reading changes nothing


def test_pictures_are_svg(client):
    client.post("/api/add", json={"gene": "LYZ"})
    for path in ["/api/plot/box.svg?gene=LYZ", "/api/plot/embedding.svg?gene=CD3E", "/api/plot/history.svg"]:
        response = client.get(path)
        assert response.status_code == 200, path
        assert response.headers["content-type"].startswith("image/svg+xml")
        assert response.text.startswith("<svg") and response.text.endswith("</svg>")
    assert "LYZ" in client.get("/api/plot/history.svg").text


def test_no_embedding_is_a_clear_404(adata):
    del adata.obsm["X_umap"]
    client = TestClient(markers_app(MarkerExplorer(adata, "cell_type")))
    response = client.get("/api/plot/embedding.svg?gene=LYZ")
    assert response.status_code == 404 and "X_umap" in response.json()["error"]


def test_a_rare_group_is_drawn_whole_at_200000_cells():
    """100 cells of 200,000 (0.05 %): every one is on the embedding, coloured by its marker, where an even subsample
    of the 6,000 points drawn would keep about three."""
    import anndata
    import numpy as np
    import pandas as pd
    import scipy.sparse as sp

    from paucity.serve.plots import MAX_POINTS

    rng = np.random.default_rng(0)
    n, rare = 200_000, 100
    groups = np.r_[rng.integers(0, 10, n - rare), np.full(rare, 10)]
    marker = (groups == 10).astype(np.float32) * 5 + rng.poisson(0.05, n)
    X = sp.csr_matrix(np.c_[marker, rng.poisson(0.3, (n, 2))].astype(np.float32))
    umap = np.where(groups[:, None] == 10, 0.0, rng.normal(scale=4, size=(n, 2)))  # the rare cells at the origin
    names = np.array([f"type {g}" for g in range(10)] + ["rare"])
    adata = anndata.AnnData(X, obs=pd.DataFrame({"cell_type": names[groups]}, index=[f"c{i}" for i in range(n)]),
                            var=pd.DataFrame(index=["RARE1", "G2", "G3"]))
    adata.obsm["X_umap"] = umap
    client = TestClient(markers_app(MarkerExplorer(adata, "cell_type", n_bins=3)))
    svg = client.get("/api/plot/embedding.svg?gene=RARE1").text
    assert f'data-drawn="{MAX_POINTS}" data-cells="{n}"' in svg and "(6,000 of 200,000 cells drawn" in svg
    spots = re.findall(r"M([0-9.]+) ([0-9.]+)h0", svg)  # every point, in the order drawn
    assert len(spots) == MAX_POINTS
    origin = spots[-1]
    assert spots[-rare:] == [origin] * rare  # the most expressing cells, drawn last: the whole rare group, on top
    assert spots.count(origin) == rare


def test_the_stratified_sample_keeps_every_groups_share():
    import numpy as np

    from paucity.serve.plots import stratified_sample

    rng = np.random.default_rng(1)
    codes = np.r_[np.zeros(150_000, dtype=int), np.ones(45_000, dtype=int), np.full(4_900, 2), np.full(100, 3)]
    codes = codes[rng.permutation(codes.size)]
    kept = stratified_sample(codes, 6000)
    assert kept.size == 6000 and np.all(np.diff(kept) > 0)
    counts = np.bincount(codes[kept])
    assert counts[3] == 100 and counts[2] >= 1500  # the small groups get at least 6000 // 4 places
    assert counts[0] > counts[1] > counts[2]  # the rest in proportion to size
    np.testing.assert_array_equal(kept, stratified_sample(codes, 6000))  # the same picture every time
    assert stratified_sample(codes[:500], 6000).tolist() == list(range(500))  # few cells: all of them
    many = np.arange(10_000) % 5000  # more groups than places: each of the first gets its one
    assert stratified_sample(many, 3000).size == 3000


def test_a_killed_server_loses_nothing(h5ad_path):
    """kill -9 of ``paucity serve markers``: started again, it shows the selection as it was, from the journal."""
    import httpx

    from .conftest import Served

    def api(served, path, body=None):
        url = served.url.split("?")[0] + path
        token = {"x-paucity-token": served.url.split("token=")[1]}
        response = httpx.post(url, json=body, headers=token) if body is not None else httpx.get(url, headers=token)
        assert response.status_code == 200, response.text
        return response.json()

    command = ["serve", "markers", str(h5ad_path), "--groupby", "cell_type"]
    served = Served(*command)
    try:
        api(served, "api/objective", {"method": "jmi", "target": "B cell"})
        api(served, "api/take", {"k": 3})
        before = api(served, "api/remove", {"gene": api(served, "api/state")["selection"][1]["gene"]})["state"]
    finally:
        served.kill()
    served = Served(*command)
    try:
        said = served.wait_for_line("warning: took up")  # the command line says it too
        after = api(served, "api/state")
    finally:
        served.stop()
    assert said.startswith("warning: took up the unsaved selection of 2 gene(s) kept in cells.h5ad.paucity-journal.json")
    assert after["selection"] == before["selection"] and len(after["selection"]) == 2
    assert (after["method"], after["target"]) == ("jmi", "B cell")
    assert after["recovered"]["recovered"] and after["recovered"]["n_genes"] == 2
    assert after["history"][-1]["action"] == "recover"


def test_cross_validated_error(client):
    assert client.get("/api/cv").json()["error_rate"] is None
    client.post("/api/take", json={"k": 3})
    answer = client.get("/api/cv").json()
    assert 0 <= answer["error_rate"] < 0.5
    assert answer["n_folds"] == 5 and answer["classifier"] == "nearest centroid" and not answer["superseded"]
    assert answer["genes"] == [s["gene"] for s in client.get("/api/state").json()["selection"]]


def test_the_page_and_its_files_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and "Marker explorer" in page.text
    for asset in ["static/markers.js", "static/markers.css"]:
        assert asset in page.text
        assert client.get("/" + asset).status_code == 200
    assert "http://" not in page.text.replace("http://www.w3.org", "") and "https://" not in page.text


@pytest.mark.parametrize(
    "path",
    ["/static/../explorer.py", "/static/%2e%2e/explorer.py", "/static/..%2fexplorer.py", "/static/%2e%2e%2f__init__.py",
     "/static//etc/passwd", "/static/....//explorer.py"],
)
def test_path_traversal_is_refused(client, path):
    response = client.get(path)
    assert response.status_code in (400, 404)
    assert "import" not in response.text and "root:" not in response.text


@pytest.mark.parametrize(
    "path, body, match",
    [
        ("/api/add", b"{", "not valid JSON"),
        ("/api/add", b"[1, 2]", "must be a JSON object"),
        ("/api/add", b'{"gene": "LYZ", "extra": 1}', "unknown field"),
        ("/api/add", b"{}", "needs the field 'gene'"),
        ("/api/add", b'{"gene": 5}', "gene must be a gene name"),
        ("/api/add", b'{"gene": "NOPE"}', "not in the data"),
        ("/api/take", b'{"k": "3"}', "k must be a whole number"),
        ("/api/take", b'{"k": 0}', "k must be"),
        ("/api/take", b'{"k": 2.5}', "k must be a whole number"),
        ("/api/objective", b'{"method": "best"}', "method must be one of"),
        ("/api/objective", b'{"method": "cife", "target": "Neuron"}', "not a group"),
        ("/api/reorder", b'{"genes": "LYZ"}', "list of gene names"),
        ("/api/undo", b"{}", "nothing to undo"),
        ("/api/remove", b'{"gene": "LYZ"}', "not selected"),
    ],
)
def test_bad_requests_are_400_with_a_one_line_message(client, path, body, match):
    before = client.get("/api/state").json()
    response = client.post(path, content=body, headers=JSON)
    assert response.status_code == 400
    message = response.json()["error"]
    assert match in message and "\n" not in message
    assert client.get("/api/state").json() == before


def test_bad_query_parameters(client):
    assert client.get("/api/state?n=abc").status_code == 400
    assert client.get("/api/state?n=0").status_code == 400
    assert client.get("/api/plot/box.svg").status_code == 400
    assert client.get("/api/plot/box.svg?gene=NOPE").status_code == 400


def test_unknown_paths_and_methods(client):
    assert client.get("/api/nothing").json()["error"].startswith("no such page")
    assert client.get("/api/add").status_code == 405


def test_a_body_too_large_is_refused_before_it_is_read(client):
    response = client.post("/api/add", content=b'{"gene": "' + b"A" * 70_000 + b'"}', headers=JSON)
    assert response.status_code == 413 and "bytes" in response.json()["error"]

    def chunks():  # no Content-Length: refused as it streams, after the first chunks past the limit
        yield b'{"gene": "'
        for _ in range(1000):
            yield b"A" * 10_000

    streamed = client.post("/api/add", content=chunks(), headers=JSON)
    assert streamed.status_code == 413 and "larger than the 65536 bytes" in streamed.json()["error"]


# ------------------------------------------------------------------------------------------- the token
def test_token_is_needed_on_every_request(explorer):
    client = TestClient(markers_app(explorer, token="s3cret"))
    for path in ["/", "/api/state", "/static/markers.js", "/api/plot/history.svg", "/nothing"]:
        response = client.get(path)
        assert response.status_code == 401, path
        assert "token" in response.json()["error"]
    assert client.post("/api/add", json={"gene": "LYZ"}).status_code == 401
    assert client.get("/api/state", headers={"x-paucity-token": "wrong"}).status_code == 401
    assert explorer.selection == []


def test_token_by_header_query_or_cookie(explorer):
    client = TestClient(markers_app(explorer, token="s3cret"))
    assert client.get("/api/state", headers={"x-paucity-token": "s3cret"}).status_code == 200
    page = client.get("/?token=s3cret")
    assert page.status_code == 200 and "HttpOnly" in page.headers["set-cookie"]
    assert client.get("/static/markers.css").status_code == 200  # the cookie the page set
    assert client.post("/api/add", json={"gene": "LYZ"}).status_code == 200


def test_a_post_must_say_it_is_json(client):
    """Another web site cannot post a form or plain text to a page on this machine: only JSON, which needs CORS."""
    for headers in [{}, {"content-type": "text/plain"}, {"content-type": "application/x-www-form-urlencoded"}]:
        response = client.post("/api/add", content=b'{"gene": "LYZ"}', headers=headers)
        assert response.status_code == 415 and "application/json" in response.json()["error"]
    assert client.post("/api/export/h5ad").status_code == 415
    assert client.get("/api/state").json()["selection"] == []


def test_local_only_refuses_other_host_names(explorer):
    app = markers_app(explorer, local_only=True)
    assert TestClient(app, base_url="http://evil.example:8000").get("/api/state").status_code == 400
    assert TestClient(app, base_url="http://127.0.0.1:8000").get("/api/state").status_code == 200
    assert TestClient(app, base_url="http://localhost:8000").get("/").status_code == 200


# ---------------------------------------------------------------------------------- fuzzing validators
names = st.one_of(
    st.text(max_size=30),
    st.sampled_from(["", " ", "lyz", "LYZ ", "../LYZ", "LYZ\x00", "ＬＹＺ", "CD3E;DROP"]),
    st.integers(), st.none(), st.booleans(), st.floats(allow_nan=True), st.lists(st.text(max_size=3), max_size=3),
)
values = st.one_of(st.text(max_size=12), st.integers(-10**20, 10**20), st.floats(), st.none(), st.booleans(),
                   st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _check_refused(client, path, body, before):
    response = client.post(path, content=json.dumps(body).encode(), headers=JSON)
    assert response.status_code in (200, 400), response.text
    if response.status_code == 400:
        message = response.json()["error"]
        assert message and "\n" not in message and "Traceback" not in message
        assert client.get("/api/state").json() == before
    return response


@FUZZ
@given(gene=names)
def test_fuzz_gene_names(shared_explorer, gene):
    client = TestClient(markers_app(shared_explorer))
    before = client.get("/api/state").json()
    for path in ["/api/add", "/api/remove"]:
        response = _check_refused(client, path, {"gene": gene}, before)
        assert response.status_code == 400 or gene in GENES
        if response.status_code == 200:
            client.post("/api/undo", json={})


@FUZZ
@given(method=values, target=values)
def test_fuzz_objectives(shared_explorer, method, target):
    client = TestClient(markers_app(shared_explorer))
    before = client.get("/api/state").json()
    response = _check_refused(client, "/api/objective", {"method": method, "target": target}, before)
    if response.status_code == 200:
        assert str(method).lower() in before["methods"]
        if response.json()["state"] != before:
            client.post("/api/undo", json={})


@FUZZ
@given(k=values)
def test_fuzz_k(shared_explorer, k):
    client = TestClient(markers_app(shared_explorer))
    before = client.get("/api/state").json()
    response = _check_refused(client, "/api/take", {"k": k}, before)
    if response.status_code == 200:
        assert isinstance(k, int) and 1 <= k <= len(GENES)
        client.post("/api/undo", json={})


@FUZZ
@given(body=st.one_of(st.binary(max_size=40), st.text(max_size=40).map(str.encode)))
def test_fuzz_raw_bodies(shared_explorer, body):
    client = TestClient(markers_app(shared_explorer))
    before = client.get("/api/state").json()
    for path in ["/api/add", "/api/take", "/api/objective", "/api/reorder"]:
        response = client.post(path, content=body, headers=JSON)
        assert response.status_code == 400, (path, body, response.text)
        assert "\n" not in response.json()["error"]
    assert client.get("/api/state").json() == before


@FUZZ
@given(key=values, overwrite=values)
def test_fuzz_save_keys(shared_explorer, key, overwrite):
    """The explorer has no file: a save is refused for its key or its overwrite first, or for the missing file."""
    client = TestClient(markers_app(shared_explorer))
    before = client.get("/api/state").json()
    response = _check_refused(client, "/api/export/h5ad", {"key": key, "overwrite": overwrite}, before)
    assert response.status_code == 400


@FUZZ
@given(gene=st.text(max_size=30))
def test_fuzz_explain(shared_explorer, gene):
    client = TestClient(markers_app(shared_explorer))
    response = client.get("/api/explain", params={"gene": gene})
    assert response.status_code in (200, 400)
    if response.status_code == 200:
        assert response.json()["gene"] == gene
    else:
        assert "\n" not in response.json()["error"]
