-- `pipec lsp` for .pipe files in Neovim 0.7 or later, with the built-in
-- client: copy this file to ~/.config/nvim/lua/pipe.lua and put
--   require("pipe").setup()
-- in init.lua (options: cmd, the command that starts the server).
local M = {}

function M.setup(opts)
    opts = opts or {}
    local cmd = opts.cmd or { "pipec", "lsp" }
    local client_id = nil
    local group = vim.api.nvim_create_augroup("pipec_lsp", { clear = true })
    -- Neovim 0.7 reads vim.filetype.add only with g:do_filetype_lua set: an
    -- autocommand works in every version.
    vim.api.nvim_create_autocmd({ "BufRead", "BufNewFile" }, {
        group = group,
        pattern = "*.pipe",
        command = "setfiletype pipe",
    })
    vim.api.nvim_create_autocmd("FileType", {
        group = group,
        pattern = "pipe",
        callback = function(args)
            vim.bo[args.buf].commentstring = "# %s"
            -- One server for every .pipe buffer.
            if not client_id or not vim.lsp.get_client_by_id(client_id) then
                client_id = vim.lsp.start_client({
                    name = "pipec",
                    cmd = cmd,
                    root_dir = vim.fn.getcwd(),
                })
            end
            if not client_id then
                vim.notify("pipec lsp did not start: is pipec on PATH?", vim.log.levels.ERROR)
                return
            end
            vim.lsp.buf_attach_client(args.buf, client_id)
            local map = function(keys, fn)
                vim.keymap.set("n", keys, fn, { buffer = args.buf, silent = true })
            end
            map("K", vim.lsp.buf.hover)
            map("gd", vim.lsp.buf.definition)
            map("gr", vim.lsp.buf.references)
            map("<leader>rn", vim.lsp.buf.rename)
            map("<leader>ca", vim.lsp.buf.code_action)
            map("<leader>f", function() vim.lsp.buf.formatting() end)
            vim.bo[args.buf].omnifunc = "v:lua.vim.lsp.omnifunc"
        end,
    })
end

return M
