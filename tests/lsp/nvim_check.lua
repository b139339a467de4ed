-- Run by tests/lsp/nvim.sh: Neovim (headless) with editors/nvim/pipe.lua
-- opens PIPE_FILE, waits for the server's diagnostics, asks for a hover at
-- PIPE_HOVER_LINE:PIPE_HOVER_COL (1-based line, 0-based column), prints
-- both and quits; exit status 1 when either does not come.
package.path = vim.env.PIPE_EDITORS .. "/nvim/?.lua;" .. package.path
require("pipe").setup({ cmd = { vim.env.PIPEC, "lsp" } })
vim.cmd("edit " .. vim.fn.fnameescape(vim.env.PIPE_FILE))
local function fail(what)
    io.stderr:write("nvim_check: " .. what .. "\n")
    vim.cmd("cquit 1")
end
if vim.bo.filetype ~= "pipe" then
    fail("filetype is '" .. vim.bo.filetype .. "', not pipe")
end
if not vim.wait(20000, function() return #vim.diagnostic.get(0) > 0 end, 50) then
    fail("no diagnostics within 20 s")
end
for _, d in ipairs(vim.diagnostic.get(0)) do
    local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code) or "?"
    io.stdout:write(string.format("diagnostic %d:%d %s %s\n", d.lnum + 1, d.col + 1, code,
        vim.split(d.message, "\n")[1]))
end
local params = {
    textDocument = vim.lsp.util.make_text_document_params(0),
    position = { line = tonumber(vim.env.PIPE_HOVER_LINE) - 1, character = tonumber(vim.env.PIPE_HOVER_COL) },
}
local answers = vim.lsp.buf_request_sync(0, "textDocument/hover", params, 10000) or {}
local text = nil
for _, a in pairs(answers) do
    if a.result and a.result.contents then
        text = a.result.contents.value
    end
end
if not text then
    fail("no hover")
end
io.stdout:write("hover " .. vim.split(text, "\n")[2] .. "\n")
vim.cmd("qall!")
