"""`pipec lsp` through pytest-lsp's client (pygls): the lifecycle, text
sync, diagnostics, formatting. PIPEC names the pipec under test."""
import os
import pathlib
import sys

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

PIPEC = os.environ["PIPEC"]

GOOD = """\
step load(path: string) -> data: dataset {
    command = ["cp", "{path}", "{data}"]
}

step train(data: dataset, epochs: int = 3) -> model: model {
    command = ["echo", "{data}", "{epochs}", "{model}"]
}

pipeline p(path: string = "in.csv") {
    d = load(path = path)
    train(data = d)
}
"""


def capabilities():
    return types.ClientCapabilities(
        general=types.GeneralClientCapabilities(position_encodings=[types.PositionEncodingKind.Utf16]),
        text_document=types.TextDocumentClientCapabilities(
            synchronization=types.TextDocumentSyncClientCapabilities(),
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(
                related_information=True, version_support=True, code_description_support=True),
            formatting=types.DocumentFormattingClientCapabilities(),
            document_symbol=types.DocumentSymbolClientCapabilities(hierarchical_document_symbol_support=True),
            hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.Markdown]),
            definition=types.DefinitionClientCapabilities(),
            references=types.ReferenceClientCapabilities(),
            rename=types.RenameClientCapabilities(prepare_support=True),
            semantic_tokens=types.SemanticTokensClientCapabilities(
                requests=types.ClientSemanticTokensRequestOptions(full=True),
                token_types=["decorator", "property", "function", "namespace", "parameter", "variable", "type", "string"],
                token_modifiers=["declaration"], formats=[types.TokenFormat.Relative]),
            code_action=types.CodeActionClientCapabilities(
                code_action_literal_support=types.ClientCodeActionLiteralOptions(
                    code_action_kind=types.ClientCodeActionKindOptions(value_set=[types.CodeActionKind.QuickFix]))),
            completion=types.CompletionClientCapabilities(
                completion_item=types.ClientCompletionItemOptions(documentation_format=[types.MarkupKind.Markdown])),
        ),
    )


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[PIPEC, "lsp"]))
async def client(lsp_client: LanguageClient):
    result = await lsp_client.initialize_session(types.InitializeParams(capabilities=capabilities()))
    lsp_client.init_result = result
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def uri(tmp_path):
    return (tmp_path / "t.pipe").as_uri()


async def open_doc(client, uri, text, version=1):
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="pipe", version=version, text=text)))
    return await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)


async def change(client, uri, version, edits):
    """edits: (start_line, start_char, end_line, end_char, text), or a whole text."""
    changes = []
    for e in edits:
        if isinstance(e, str):
            changes.append(types.TextDocumentContentChangeWholeDocument(text=e))
        else:
            sl, sc, el, ec, text = e
            changes.append(types.TextDocumentContentChangePartial(
                range=types.Range(start=types.Position(line=sl, character=sc), end=types.Position(line=el, character=ec)),
                text=text))
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version), content_changes=changes))
    return await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)


async def test_initialize(client: LanguageClient):
    caps = client.init_result.capabilities
    assert client.init_result.server_info.name == "pipec"
    assert caps.position_encoding == types.PositionEncodingKind.Utf16
    assert caps.text_document_sync.change == types.TextDocumentSyncKind.Incremental
    assert caps.text_document_sync.open_close
    assert caps.document_formatting_provider
    assert caps.document_symbol_provider and caps.definition_provider and caps.references_provider
    assert caps.hover_provider


async def test_open_clean_file(client, uri):
    params = await open_doc(client, uri, GOOD)
    assert params.uri == uri and params.version == 1
    assert params.diagnostics == ()


async def test_open_with_error(client, uri):
    text = GOOD.replace("train(data = d)", "trian(data = d)")
    params = await open_doc(client, uri, text, version=7)
    assert params.version == 7
    [d] = params.diagnostics
    assert d.code == "E0102" and d.source == "pipec"
    assert d.severity == types.DiagnosticSeverity.Error
    # The callee name: line 10, columns 4 to 9.
    assert (d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character) == (10, 4, 10, 9)
    assert "no step named `trian`" in d.message and "help: did you mean `train`?" in d.message
    assert d.code_description.href.endswith("docs/diagnostics.md#e0102")
    # The note "`train` is declared here" points at the step's name.
    [rel] = d.related_information
    assert rel.location.uri == uri
    assert rel.location.range.start == types.Position(line=4, character=5)


async def test_same_diagnostics_as_check(client, uri, tmp_path):
    """The server's diagnostics are `pipec check`'s, code and place for each."""
    import json
    import subprocess
    text = GOOD.replace("epochs: int = 3", "epochs: int = \"x\"").replace("d = load(path = path)",
                                                                        "d = load(path = path, extra = 1)")
    path = tmp_path / "t.pipe"
    path.write_text(text)
    out = subprocess.run([PIPEC, "check", str(path), "--diagnostics-format=json"], capture_output=True, text=True)
    expected = [(o["code"], o["line"] - 1, o["column"] - 1) for o in map(json.loads, out.stdout.splitlines())]
    params = await open_doc(client, uri, text)
    got = [(d.code, d.range.start.line, d.range.start.character) for d in params.diagnostics]
    assert len(expected) >= 2 and got == expected


async def test_incremental_change(client, uri):
    params = await open_doc(client, uri, GOOD)
    assert params.diagnostics == ()
    # Misspell `train` in the call (line 10, `    train(...)`).
    params = await change(client, uri, 2, [(10, 4, 10, 9, "trian")])
    assert params.version == 2
    assert [d.code for d in params.diagnostics] == ["E0102"]
    # Two edits in one change, applied in order: fix it back in two steps.
    params = await change(client, uri, 3, [(10, 4, 10, 9, "t"), (10, 5, 10, 5, "rain")])
    assert params.version == 3 and params.diagnostics == ()
    # A whole-document change.
    params = await change(client, uri, 4, ["pipeline p() {\n    x()\n}\n"])
    assert params.version == 4 and [d.code for d in params.diagnostics] == ["E0102"]


async def test_utf16_positions(client, uri):
    """Ranges count UTF-16 code units: a character outside the BMP is two."""
    text = GOOD.replace('path: string = "in.csv"', 'path: string = "\U0001F600\u00e9"')
    params = await open_doc(client, uri, text)
    assert params.diagnostics == ()
    line = text.splitlines()[8]
    # Misspell `load` on line 9; the line before has the emoji: nothing moves.
    params = await change(client, uri, 2, [(9, 8, 9, 12, "lod")])
    assert [(d.code, d.range.start.line, d.range.start.character) for d in params.diagnostics] == [("E0102", 9, 8)]
    # An edit after the emoji on its own line, in UTF-16 units: the closing
    # quote is at len(line) in code points plus one for the surrogate pair.
    quote = line.index('"', line.index("\u00e9"))
    params = await change(client, uri, 3, [(9, 8, 9, 11, "load"), (8, quote + 1, 8, quote + 1, "x")])
    assert params.diagnostics == ()
    formatted = await client.text_document_formatting_async(types.DocumentFormattingParams(
        text_document=types.TextDocumentIdentifier(uri=uri), options=types.FormattingOptions(tab_size=4, insert_spaces=True)))
    assert formatted == ()  # canonical already, so the edit landed where meant
    params = await change(client, uri, 4, [(8, quote + 2, 8, quote + 2, "\"")])
    # Had the edit landed one unit early, the string would have been intact.
    assert params.diagnostics and params.diagnostics[0].code in ("E0010", "E0002")


async def test_range_formatting(client, uri):
    """Only the lines fmt changes within the range; the whole range, then the rest, gives fmt's text."""
    import subprocess
    messy = ('step a(x:int)->o:dataset{\n    command=["true", "{x}", "{o}"]\n}\n\n'
             'step b(y: int) {\n  command = [ "true","{y}" ]\n}\n\n'
             "pipeline p() {\n    o = a(x = 1)\n    b(y = 2)\n}\n")
    import tempfile, os
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "m.pipe")
        with open(path, "w") as f:
            f.write(messy)
        subprocess.run([PIPEC, "fmt", path], check=True, capture_output=True)
        canonical = open(path).read()
    assert canonical and canonical != messy
    await open_doc(client, uri, messy)
    assert client.init_result.capabilities.document_range_formatting_provider
    opts = types.FormattingOptions(tab_size=4, insert_spaces=True)
    async def fmt_range(text, l0, l1):
        return await client.text_document_range_formatting_async(types.DocumentRangeFormattingParams(
            text_document=doc(uri), range=types.Range(start=types.Position(line=l0, character=0),
                                                      end=types.Position(line=l1, character=0)), options=opts))
    # Step b only (lines 4 to 6): step a stays as it was.
    edits = await fmt_range(messy, 4, 7)
    assert edits and all(4 <= e.range.start.line and e.range.end.line <= 7 for e in edits), edits
    text = apply(messy, edits)
    assert text.startswith(messy.split("\n\n")[0]) and 'command = ["true", "{y}"]' in text, text
    # Then the rest: the same as fmt on the whole file.
    await change(client, uri, 2, [text])
    text = apply(text, await fmt_range(text, 0, len(text.split("\n"))))
    assert text == canonical, (text, canonical)
    await change(client, uri, 3, [text])
    assert await fmt_range(text, 0, 3) == ()


async def test_error_cleared(client, uri):
    params = await open_doc(client, uri, GOOD.replace("d = load(path = path)", "d = load(path = 1)"))
    assert [d.code for d in params.diagnostics] == ["E0201"]
    params = await change(client, uri, 2, [(9, 20, 9, 21, "path")])
    assert params.diagnostics == ()


async def test_warning_severity(client, uri):
    params = await open_doc(client, uri, GOOD + "\nstep unused() {\n    command = [\"true\"]\n}\n")
    [d] = params.diagnostics
    assert d.code == "W0405" and d.severity == types.DiagnosticSeverity.Warning


async def test_half_typed_file(client, uri):
    """Every prefix of a file: diagnostics each time, never a crash."""
    await open_doc(client, uri, "")
    version = 1
    for cut in range(0, len(GOOD), 7):
        version += 1
        params = await change(client, uri, version, [GOOD[:cut]])
        assert params.version == version
    formatted = await client.text_document_formatting_async(types.DocumentFormattingParams(
        text_document=types.TextDocumentIdentifier(uri=uri), options=types.FormattingOptions(tab_size=4, insert_spaces=True)))
    assert formatted is None or isinstance(formatted, list)


async def test_close_clears(client, uri):
    await open_doc(client, uri, "pipeline p() { x() }\n")
    client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    params = await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert params.uri == uri and params.diagnostics == ()


async def test_imports_on_disk(client, tmp_path):
    """Imports resolve next to the document's file."""
    (tmp_path / "steps.pipe").write_text('step s() {\n    command = ["true"]\n}\n')
    uri = (tmp_path / "main.pipe").as_uri()
    params = await open_doc(client, uri, 'import "steps.pipe"\n\npipeline p() {\n    s()\n}\n')
    assert params.diagnostics == ()
    params = await open_doc(client, (tmp_path / "other.pipe").as_uri(), 'import "nope.pipe"\n')
    assert [d.code for d in params.diagnostics] == ["E0111"]


async def test_formatting(client, uri):
    ugly = "step a(x: int) {\n  command = [\"echo\",\"{x}\"]\n}\npipeline p() {\n  a(x=1)\n}"
    await open_doc(client, uri, ugly)
    edits = await client.text_document_formatting_async(types.DocumentFormattingParams(
        text_document=types.TextDocumentIdentifier(uri=uri), options=types.FormattingOptions(tab_size=4, insert_spaces=True)))
    [e] = edits
    assert e.range.start == types.Position(line=0, character=0)
    assert e.range.end == types.Position(line=5, character=1)
    path = pathlib.Path(uri[len("file://"):])
    path.write_text(ugly)
    import subprocess
    subprocess.run([PIPEC, "fmt", str(path)], check=True)
    assert e.new_text == path.read_text()
    # Applied, the document is canonical: no more edits.
    await change(client, uri, 2, [e.new_text])
    edits = await client.text_document_formatting_async(types.DocumentFormattingParams(
        text_document=types.TextDocumentIdentifier(uri=uri), options=types.FormattingOptions(tab_size=4, insert_spaces=True)))
    assert edits == ()


async def test_formatting_refuses_broken(client, uri):
    await open_doc(client, uri, "step a( {\n")
    edits = await client.text_document_formatting_async(types.DocumentFormattingParams(
        text_document=types.TextDocumentIdentifier(uri=uri), options=types.FormattingOptions(tab_size=4, insert_spaces=True)))
    assert edits is None


async def test_unknown_request(client):
    with pytest.raises(Exception) as info:
        await client.protocol.send_request_async("pipe/noSuchMethod", {})
    assert "-32601" in str(info.value) or "not found" in str(info.value)


NAV = """\
import "steps.pipe"

@resources(cpu = 2, memory = "4GB")
step train(data: dataset, epochs: int = 3) -> model: model {
    command = ["echo", "{data}", "{epochs}", "{model}"]
}

pipeline p(path: string = "in.csv", n: int = 2) {
    d = load(path = path)
    m = train(data = d, epochs = n)
    m2 = train(data = d)
    publish(model = m)
    publish(model = m2)
}
"""

STEPS = """\
step load(path: string) -> data: dataset {
    command = ["cp", "{path}", "{data}"]
}

step publish(model: model) {
    command = ["echo", "{model}"]
}
"""


def pos(text, needle, nth=0, delta=0):
    """The LSP position of the nth occurrence of needle (+delta characters)."""
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    at += delta
    line = text.count("\n", 0, at)
    return types.Position(line=line, character=at - (text.rfind("\n", 0, at) + 1))


@pytest.fixture
def nav(tmp_path):
    (tmp_path / "steps.pipe").write_text(STEPS)
    return (tmp_path / "main.pipe").as_uri(), (tmp_path / "steps.pipe").as_uri()


def doc(uri):
    return types.TextDocumentIdentifier(uri=uri)


async def test_document_symbols(client, nav):
    uri, _ = nav
    params = await open_doc(client, uri, NAV)
    assert params.diagnostics == ()
    syms = await client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=doc(uri)))
    assert [(s.name, s.kind) for s in syms] == [("train", types.SymbolKind.Function), ("p", types.SymbolKind.Module)]
    train, p = syms
    assert [c.name for c in train.children] == ["data", "epochs", "model"]
    assert train.selection_range.start == pos(NAV, "train")
    # Invocations by their ids, after the pipeline's parameters.
    assert [c.name for c in p.children] == ["path", "n", "load", "train", "train_2", "publish", "publish_2"]
    assert [c.detail for c in p.children][2:] == ["load", "train", "train", "publish", "publish"]
    for s in [train, p] + list(train.children) + list(p.children):
        assert (s.range.start.line, s.range.start.character) <= (s.selection_range.start.line, s.selection_range.start.character)
        assert (s.range.end.line, s.range.end.character) >= (s.selection_range.end.line, s.selection_range.end.character)


async def definition(client, uri, position):
    return await client.text_document_definition_async(types.DefinitionParams(text_document=doc(uri), position=position))


async def test_definition(client, nav):
    uri, steps_uri = nav
    await open_doc(client, uri, NAV)
    # A step declared here: its name after `step`.
    loc = await definition(client, uri, pos(NAV, "train(data = d, epochs", delta=2))
    assert loc.uri == uri and loc.range.start == pos(NAV, "train(data: dataset")
    # A step from an imported file.
    loc = await definition(client, uri, pos(NAV, "load(path"))
    assert loc.uri == steps_uri and loc.range.start == pos(STEPS, "load")
    # A keyword argument: the step's parameter.
    loc = await definition(client, uri, pos(NAV, "epochs = n"))
    assert loc.uri == uri and loc.range.start == pos(NAV, "epochs: int")
    loc = await definition(client, uri, pos(NAV, "model = m)"))
    assert loc.uri == steps_uri and loc.range.start == pos(STEPS, "model: model")
    # An artifact: where it is bound; a pipeline parameter: its declaration.
    loc = await definition(client, uri, pos(NAV, "data = d,", delta=7))
    assert loc.range.start == pos(NAV, "d = load")
    loc = await definition(client, uri, pos(NAV, "epochs = n", delta=9))
    assert loc.range.start == pos(NAV, "n: int")
    # The cursor right after a name is still on it; nothing else has one.
    loc = await definition(client, uri, pos(NAV, "m2 = train", delta=2))
    assert loc.range.start == pos(NAV, "m2 = train")
    assert await definition(client, uri, pos(NAV, "4GB")) is None


async def test_workspace_symbols(client, nav):
    uri, steps_uri = nav
    await open_doc(client, uri, NAV)
    assert client.init_result.capabilities.workspace_symbol_provider
    async def query(q):
        result = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query=q))
        return {(r.name, r.kind, r.location.uri) for r in result}
    K = types.SymbolKind
    assert await query("") == {("train", K.Function, uri), ("p", K.Module, uri), ("load", K.Function, steps_uri),
                               ("publish", K.Function, steps_uri)}
    # The query's letters in order, any case.
    assert await query("LD") == {("load", K.Function, steps_uri)}
    assert await query("pub") == {("publish", K.Function, steps_uri)}
    assert await query("zz") == set()
    result = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="load"))
    assert result[0].location.range.start == pos(STEPS, "load")


async def test_definition_into_code(client, tmp_path):
    """From a step's name after `step` (or its `entry`, `command` value) to
    its C entry function or its command's script."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.c").write_text('#include "p.h"\n\n/* prep(x) { */\nint prep_main(pipe_ctx *ctx, const p_prep_args *a)\n{\n    return 0;\n}\n')
    (tmp_path / "train.py").write_text("print(1)\n")
    text = ('step prep() {\n    source = "src/a.c"\n    entry = "prep_main"\n}\n\n'
            'step train() {\n    command = ["python3", "train.py", "--x"]\n    source = "train.py"\n}\n\n'
            "pipeline p() {\n    prep()\n    train()\n}\n")
    uri = (tmp_path / "main.pipe").as_uri()
    params = await open_doc(client, uri, text)
    assert params.diagnostics == (), params.diagnostics
    c_uri = (tmp_path / "src" / "a.c").as_uri()
    for at in [pos(text, "prep() {"), pos(text, '"prep_main"', delta=3)]:
        loc = await definition(client, uri, at)
        assert loc.uri == c_uri and loc.range.start == types.Position(line=3, character=4), loc
    for at in [pos(text, "train() {"), pos(text, '"train.py", "--x"', delta=2)]:
        loc = await definition(client, uri, at)
        assert loc.uri == (tmp_path / "train.py").as_uri() and loc.range.start.line == 0, loc
    # A call still goes to the step's declaration.
    loc = await definition(client, uri, pos(text, "prep()\n    train"))
    assert loc.uri == uri and loc.range.start == pos(text, "prep() {")


async def references(client, uri, position, include=True):
    return await client.text_document_references_async(types.ReferenceParams(
        text_document=doc(uri), position=position, context=types.ReferenceContext(include_declaration=include)))


async def test_references(client, nav):
    uri, steps_uri = nav
    await open_doc(client, uri, NAV)
    refs = await references(client, uri, pos(NAV, "train"))
    assert [(r.uri, r.range.start) for r in refs] == [
        (uri, pos(NAV, "train")), (uri, pos(NAV, "train", 1)), (uri, pos(NAV, "train", 2))]
    refs = await references(client, uri, pos(NAV, "train"), include=False)
    assert len(refs) == 2
    # An artifact: its binding and its two uses.
    refs = await references(client, uri, pos(NAV, "d = load"))
    assert [r.range.start for r in refs] == [pos(NAV, "d = load"), pos(NAV, "data = d", 0, 7), pos(NAV, "data = d", 1, 7)]
    # An imported step: its declaration there and the calls here.
    refs = await references(client, uri, pos(NAV, "publish"))
    assert sorted(r.uri for r in refs) == sorted([steps_uri, uri, uri])
    # A step's parameter: the declaration and the keyword argument.
    refs = await references(client, uri, pos(NAV, "epochs: int"))
    assert [r.range.start for r in refs] == [pos(NAV, "epochs: int"), pos(NAV, "epochs = n")]


async def hover(client, uri, position):
    return await client.text_document_hover_async(types.HoverParams(text_document=doc(uri), position=position))


async def test_hover(client, nav):
    uri, _ = nav
    await open_doc(client, uri, NAV)
    h = await hover(client, uri, pos(NAV, "memory ="))
    assert h.contents.kind == types.MarkupKind.Markdown
    assert h.contents.value.startswith("**@resources(memory)**") and "size" in h.contents.value
    assert h.range.start == pos(NAV, "memory =")
    # The same words as `pipec explain @resources` (the settings table).
    import subprocess
    explain = subprocess.run([PIPEC, "explain", "@resources"], capture_output=True, text=True, check=True).stdout
    doc_line = h.contents.value.split(": ", 1)[1].split("\n")[0]
    assert doc_line in explain
    h = await hover(client, uri, pos(NAV, "resources"))
    assert h.contents.value.startswith("**@resources**") and "`memory`" in h.contents.value
    h = await hover(client, uri, pos(NAV, "load(path"))
    assert "step load(path: string) -> data: dataset" in h.contents.value and "steps.pipe" in h.contents.value
    h = await hover(client, uri, pos(NAV, "epochs = n"))
    assert "epochs: int = 3" in h.contents.value and "step `train`" in h.contents.value
    h = await hover(client, uri, pos(NAV, "m2 = train"))
    assert "m2: model" in h.contents.value and "invocation `train_2`" in h.contents.value
    h = await hover(client, uri, pos(NAV, "path: string"))
    assert 'path: string = "in.csv"' in h.contents.value
    assert await hover(client, uri, pos(NAV, "4GB")) is None


async def test_hover_invocation(client, nav, tmp_path):
    """On a call: the invocation's entry of bundle.yaml, as `pipec build` writes it."""
    import subprocess
    import yaml
    uri, _ = nav
    await open_doc(client, uri, NAV)
    h = await hover(client, uri, pos(NAV, "train(data = d)"))
    text = h.contents.value
    assert "step train(" in text and "Invocation `train_2` of pipeline `p`" in text, text
    entry = yaml.safe_load(text.split("```yaml\n", 1)[1].split("```", 1)[0])
    path = uri[len("file://"):]
    (tmp_path / "main.pipe").write_text(NAV)
    subprocess.run([PIPEC, "build", path, "-o", str(tmp_path / "b"), "--target", "local"], check=True,
                   capture_output=True)
    bundle = yaml.safe_load((tmp_path / "b" / "bundle.yaml").read_text())
    [want] = [i for i in bundle["invocations"] if i["id"] == "train_2"]
    assert entry == want, (entry, want)
    assert entry["resources"]["memory"] == 4000000000 and entry["resources"]["cpu"] == 2
    # Not on the declaration; not while the file has errors.
    h = await hover(client, uri, pos(NAV, "train(data: dataset"))
    assert "Invocation" not in h.contents.value
    await change(client, uri, 2, [NAV.replace("load(path = path)", "load(path = nosuch)")])
    h = await hover(client, uri, pos(NAV, "train(data = d)"))
    assert "Invocation" not in h.contents.value and "no errors" in h.contents.value


async def test_requests_on_half_typed_file(client, nav):
    """Every request at every few positions of every prefix: an answer, never a crash."""
    uri, _ = nav
    await open_doc(client, uri, "")
    version = 1
    for cut in range(0, len(NAV), 23):
        version += 1
        text = NAV[:cut]
        await change(client, uri, version, [text])
        await client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=doc(uri)))
        await client.text_document_semantic_tokens_full_async(types.SemanticTokensParams(text_document=doc(uri)))
        for at in range(0, len(text), 31):
            p = types.Position(
                line=text.count("\n", 0, at), character=at - (text.rfind("\n", 0, at) + 1))
            await definition(client, uri, p)
            await references(client, uri, p)
            await hover(client, uri, p)
            await client.text_document_completion_async(types.CompletionParams(text_document=doc(uri), position=p))
            await client.text_document_prepare_rename_async(types.PrepareRenameParams(text_document=doc(uri), position=p))
            await client.text_document_code_action_async(types.CodeActionParams(
                text_document=doc(uri), range=types.Range(start=p, end=p), context=types.CodeActionContext(diagnostics=[])))


async def complete(client, uri, text, at=None):
    """Completion at the end of text (or at the marker `|`), text being the whole document."""
    at = text.index("|") if "|" in text else len(text)
    text = text.replace("|", "")
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=complete.version),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
    complete.version += 1
    position = types.Position(line=text.count("\n", 0, at), character=at - (text.rfind("\n", 0, at) + 1))
    return await client.text_document_completion_async(types.CompletionParams(text_document=doc(uri), position=position))


complete.version = 2


async def test_completion(client, uri):
    await open_doc(client, uri, "")
    caps = client.init_result.capabilities.completion_provider
    assert "@" in caps.trigger_characters and "{" in caps.trigger_characters
    # Decorators after `@`, with their docs from the settings table.
    result = await complete(client, uri, "@res")
    labels = [i.label for i in result.items]
    assert {"resources", "docker", "run_with_accelerate", "slurm", "kubernetes", "retry", "timeout"} <= set(labels)
    item = result.items[labels.index("resources")]
    assert item.kind == types.CompletionItemKind.Function and item.documentation.value.startswith("**@resources**")
    # Options where an option's name goes: after `(`, after `,`, on a new line.
    for text in ["@resources(", "@resources(cpu = 2, ", "@resources(cpu = 2,\n    mem", "@resources(|)\nstep a() {}\n",
                 '@docker(environment = {"A": "(x"}, |']:
        result = await complete(client, uri, text)
        labels = [i.label for i in result.items]
        assert {"cpu", "gpu", "memory"} <= set(labels) or "parent_image" in labels, text
    result = await complete(client, uri, "@run_with_accelerate(")
    item = [i for i in result.items if i.label == "mixed_precision"][0]
    assert item.insert_text == "mixed_precision = " and '"bf16"' in item.documentation.value
    assert item.kind == types.CompletionItemKind.Property
    # Nothing where no decorator or option name goes.
    for text in ["@resources(cpu = ", '@resources(gpu_type = "H1', "# @res", "step a(", "@nosuch(", "pipeline p() {\n    x("]:
        assert await complete(client, uri, text) is None, text


def apply(text, edits):
    """The text after TextEdits (non-overlapping), applied from the last."""
    lines = text.split("\n")
    def offset(p):
        return sum(len(l) + 1 for l in lines[:p.line]) + p.character
    for e in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        text = text[:offset(e.range.start)] + e.new_text + text[offset(e.range.end):]
    return text


async def rename(client, uri, position, name):
    return await client.text_document_rename_async(types.RenameParams(text_document=doc(uri), position=position, new_name=name))


async def test_rename(client, nav, tmp_path):
    import subprocess
    uri, _ = nav
    await open_doc(client, uri, NAV)
    version, text = 1, NAV
    cases = [
        # A step's parameter: declaration, keyword argument and `{epochs}` in its command.
        ("epochs = n", "num_epochs", ["num_epochs: int = 3", "{num_epochs}", "num_epochs = n"]),
        # An artifact: binding and uses.
        ("d = load", "rows", ["rows = load", "data = rows, ", "train(data = rows)"]),
        # A step: declaration and calls.
        ("train(data: dataset", "fit", ["step fit(", "m = fit(", "m2 = fit("]),
        # A pipeline parameter.
        ("n: int", "count", ["count: int = 2", "num_epochs = count"]),
    ]
    for at, new, expect in cases:
        prep = await client.text_document_prepare_rename_async(types.PrepareRenameParams(
            text_document=doc(uri), position=pos(text, at)))
        assert prep.range.start == pos(text, at)
        edit = await rename(client, uri, pos(text, at), new)
        assert list(edit.changes) == [uri]
        text = apply(text, edit.changes[uri])
        for e in expect:
            assert e in text, (e, text)
        version += 1
        params = await change(client, uri, version, [text])
        assert params.diagnostics == (), (at, text, params.diagnostics)
    # `pipec check` agrees on the renamed file.
    path = tmp_path / "main.pipe"
    path.write_text(text)
    assert subprocess.run([PIPEC, "check", str(path)], capture_output=True).returncode == 0


async def test_rename_refused(client, nav):
    uri, _ = nav
    await open_doc(client, uri, NAV)
    from pygls.exceptions import JsonRpcException
    for at, new, why in [("d = load", "m", "already declared"), ("d = load", "path", "already declared"),
                         ("epochs = n", "model", "already declared"), ("train(data: dataset", "p", "already declared"),
                         ("d = load", "step", "not a name"), ("d = load", "2x", "not a name"),
                         ("load(path", "fetch", "declared in"), ("path = path", "p2", "declared in"),
                         ("memory =", "x", "nothing")]:
        with pytest.raises(JsonRpcException) as info:
            await rename(client, uri, pos(NAV, at), new)
        assert why in str(info.value) or (why == "nothing" and "to rename" in str(info.value)), (at, new, info.value)
    # prepareRename says no where rename would refuse for the place itself.
    for at in ["memory =", "load(path", "resources"]:
        assert await client.text_document_prepare_rename_async(types.PrepareRenameParams(
            text_document=doc(uri), position=pos(NAV, at))) is None


FIXABLE = [
    # (the mistake, the code it gets, what the fix writes)
    ("trian(data = d)", "E0102", "train(data = d)"),
    ("train(dta = d)", "E0103", "train(data = d)"),
    ("train(data = dd)", "E0106", "train(data = d)"),
    ("@resourcse(cpu = 2)", "E0108", "@resources(cpu = 2)"),
    ("@resources(cpus = 2)", "E0109", "@resources(cpu = 2)"),
    ("@run_with_accelerate(num_processes = 1, mixed_precision = \"bf61\")", "E0204",
     "mixed_precision = \"bf16\""),
    ("    comand = [", "E0110", "    command = ["),
]

FIX_BASE = """\
@resources(cpu = 2)
@run_with_accelerate(num_processes = 1, mixed_precision = "bf16")
step train(data: dataset) {
    command = ["echo", "{data}"]
}

step load() -> out: dataset {
    command = ["echo", "{out}"]
}

pipeline p() {
    d = load()
    train(data = d)
}
"""


async def test_quick_fixes(client, uri):
    """Each fix, applied, makes its diagnostic go away and leaves the file clean."""
    await open_doc(client, uri, FIX_BASE)
    version = 1
    right = {"E0102": "train(data = d)", "E0103": "train(data = d)", "E0106": "train(data = d)",
             "E0108": "@resources(cpu = 2)", "E0109": "@resources(cpu = 2)",
             "E0204": "@run_with_accelerate(num_processes = 1, mixed_precision = \"bf16\")",
             "E0110": "    command = ["}
    for wrong, code, fixed in FIXABLE:
        text = FIX_BASE.replace(right[code], wrong, 1)
        assert text != FIX_BASE, wrong
        version += 1
        params = await change(client, uri, version, [text])
        [d] = [d for d in params.diagnostics if d.code == code]
        actions = await client.text_document_code_action_async(types.CodeActionParams(
            text_document=doc(uri), range=d.range, context=types.CodeActionContext(diagnostics=[d])))
        [action] = actions
        assert action.kind == types.CodeActionKind.QuickFix and action.diagnostics[0].code == code
        text = apply(text, action.edit.changes[uri])
        assert fixed in text and text == FIX_BASE, (code, text)
        version += 1
        params = await change(client, uri, version, [text])
        assert params.diagnostics == (), (code, params.diagnostics)
    # A positional call to an accelerated step rewritten with keywords (E0303),
    # a missing parameter added (E0104): the last artifact of its type.
    for wrong, code, title in [("train(d)", "E0303", "Pass the arguments by keyword"),
                               ("train()", "E0104", "Add `data = d`")]:
        text = FIX_BASE.replace("train(data = d)", wrong, 1)
        version += 1
        params = await change(client, uri, version, [text])
        [d] = [d for d in params.diagnostics if d.code == code]
        actions = await client.text_document_code_action_async(types.CodeActionParams(
            text_document=doc(uri), range=d.range, context=types.CodeActionContext(diagnostics=[d])))
        [action] = actions
        assert action.title == title and action.diagnostics[0].code == code
        text = apply(text, action.edit.changes[uri])
        assert text == FIX_BASE, (code, text)
        version += 1
        params = await change(client, uri, version, [text])
        assert params.diagnostics == (), (code, params.diagnostics)
    # Several at once: each positional argument named, each missing one added.
    two = FIX_BASE.replace("step train(data: dataset)", "step train(data: dataset, n: int, s: string)").replace(
        '"{data}"]', '"{data}", "{n}", "{s}"]')
    for wrong, fixed in [('train(d, 2, "x")', 'train(data = d, n = 2, s = "x")'),
                         ("train(data = d)", 'train(data = d, n = 0, s = "")')]:
        text = two.replace("train(data = d)", wrong, 1)
        version += 1
        params = await change(client, uri, version, [text])
        [d] = [d for d in params.diagnostics if d.code in ("E0303", "E0104")]
        actions = await client.text_document_code_action_async(types.CodeActionParams(
            text_document=doc(uri), range=d.range, context=types.CodeActionContext(diagnostics=[d])))
        text = apply(text, actions[0].edit.changes[uri])
        assert fixed in text, text
        version += 1
        params = await change(client, uri, version, [text])
        assert params.diagnostics == (), params.diagnostics
    # No fix where no diagnostic suggests one.
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=doc(uri), range=types.Range(start=types.Position(line=0, character=0),
                                                  end=types.Position(line=20, character=0)),
        context=types.CodeActionContext(diagnostics=[])))
    assert actions == ()


async def test_semantic_tokens(client, nav):
    uri, _ = nav
    await open_doc(client, uri, NAV)
    legend = client.init_result.capabilities.semantic_tokens_provider.legend
    result = await client.text_document_semantic_tokens_full_async(types.SemanticTokensParams(text_document=doc(uri)))
    data, tokens, line, char = result.data, {}, 0, 0
    assert len(data) % 5 == 0 and data
    lines = NAV.split("\n")
    for i in range(0, len(data), 5):
        dl, dc, length, kind, mods = data[i:i + 5]
        line, char = line + dl, (char + dc if dl == 0 else dc)
        text = lines[line][char:char + length]
        tokens.setdefault(text, set()).add((legend.token_types[kind], bool(mods & 1)))
    assert tokens["resources"] == {("decorator", False)}
    assert tokens["memory"] == {("property", False)}
    assert tokens["train"] == {("function", True), ("function", False)}
    assert tokens["dataset"] == {("type", False)}
    assert ("parameter", True) in tokens["epochs"] and ("parameter", False) in tokens["epochs"]
    assert tokens["d"] == {("variable", True), ("variable", False)}
    assert tokens["p"] == {("namespace", True)}
    assert tokens['"4GB"'] == {("string", False)} and tokens['"steps.pipe"'] == {("string", False)}
    assert tokens["load"] == {("function", False)}
    # `{NAME}` placeholders in `command`: parameters between the string's pieces.
    assert tokens["{epochs}"] == {("parameter", False)} and tokens["{data}"] == {("parameter", False)}
    assert tokens['"echo"'] == {("string", False)} and '"{epochs}"' not in tokens


async def test_semantic_placeholders(client, uri):
    text = 'step s(n: int) -> out: dataset {\n    command = "run --n={n} {{literal}} > {out}.txt"\n}\n'
    await open_doc(client, uri, text)
    legend = client.init_result.capabilities.semantic_tokens_provider.legend
    result = await client.text_document_semantic_tokens_full_async(types.SemanticTokensParams(text_document=doc(uri)))
    line, char, found = 0, 0, []
    for i in range(0, len(result.data), 5):
        dl, dc, length, kind, _ = result.data[i:i + 5]
        line, char = line + dl, (char + dc if dl == 0 else dc)
        if line == 1:
            found.append((text.split("\n")[1][char:char + length], legend.token_types[kind]))
    assert found == [('"run --n=', "string"), ("{n}", "parameter"), (" {{literal}} > ", "string"),
                     ("{out}", "parameter"), ('.txt"', "string")], found


if __name__ == "__main__":
    sys.exit(pytest.main([__file__]))


COMPLETE_SRC = '''step prep(rows: int = 3) -> cleaned: dataset {
    command = "prep --rows {rows} --out {|"
}

step train(data: dataset, epochs: int = 1) -> model: dataset {
    command = "train {data}"
}

@run_with_accelerate(mixed_precision = |)
pipeline p(lr: float = 0.1) {
    c = prep(rows = 2)
    m = |
}
'''


async def test_completion_names(client, uri):
    """Enum values, steps at a call, a step's parameters, artifacts and
    pipeline parameters in scope, and `{NAME}` placeholders in `command`."""
    def at(k, tail=""):
        """COMPLETE_SRC with the cursor at its k-th `|` (the others removed), tail inserted there."""
        parts = COMPLETE_SRC.split("|")
        return "".join(p + (tail + "|" if i == k else "") for i, p in enumerate(parts[:-1])) + parts[-1]
    await open_doc(client, uri, "")
    labels = lambda r: [i.label for i in r.items]
    # Placeholders: the step's parameters and outputs.
    result = await complete(client, uri, at(0))
    assert set(labels(result)) == {"rows", "cleaned"}
    # Enum values: quoted after `=`, bare inside the string.
    result = await complete(client, uri, at(1))
    assert set(labels(result)) == {"no", "fp16", "bf16", "fp8"}
    assert [i.insert_text for i in result.items if i.label == "bf16"] == ['"bf16"']
    assert [i.kind for i in result.items][0] == types.CompletionItemKind.EnumMember
    result = await complete(client, uri, at(1, '"b'))
    assert [i.insert_text for i in result.items if i.label == "bf16"] == ["bf16"]
    # Steps where a call goes.
    result = await complete(client, uri, at(2))
    assert {"prep", "train"} <= set(labels(result)) and "p" not in labels(result)
    result = await complete(client, uri, at(2).replace("    m = |", "    |"))
    assert {"prep", "train"} <= set(labels(result))
    # A call's parameters, then the artifacts and pipeline parameters in scope.
    result = await complete(client, uri, at(2, "train("))
    assert set(labels(result)) == {"data", "epochs"}
    assert [i.insert_text for i in result.items if i.label == "data"] == ["data = "]
    result = await complete(client, uri, at(2, "train(epochs = 2, "))
    assert set(labels(result)) == {"data", "epochs"}
    result = await complete(client, uri, at(2, "train(data = "))
    assert {"c", "lr"} <= set(labels(result)) and "rows" not in labels(result)
    # In a command given as a list.
    result = await complete(client, uri, 'step a(n: int) -> out: dataset {\n    command = ["x", "--n={|"]\n}\n')
    assert set(labels(result)) == {"n", "out"}
    # Not an enum, not a command, not a placeholder: nothing.
    assert await complete(client, uri, "@resources(memory = ") is None
    assert await complete(client, uri, 'step a() {\n    source = "{') is None
    assert await complete(client, uri, 'step a() {\n    command = "x {y} |"\n}\n') is None
