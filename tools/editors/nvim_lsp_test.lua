-- Drives `streamform lsp` from Neovim's own LSP client, headless: open a
-- model, introduce an error, read the published diagnostic, hover, jump
-- to a definition, rename a model and write the edits. Each step prints
-- "ok <step>"; a failure prints "FAIL <step>: <why>" and exits 1.
local root, bin = vim.env.PROJECT, vim.env.STREAMFORM
local function fail(step, why)
  io.stdout:write('FAIL ' .. step .. ': ' .. tostring(why) .. '\n')
  vim.cmd('cquit 1')
end
local function ok(step) io.stdout:write('ok ' .. step .. '\n') end
local function wait(step, ms, cond)
  if not vim.wait(ms, cond, 20) then fail(step, 'timed out after ' .. ms .. ' ms') end
end

local id = vim.lsp.start_client({ name = 'streamform', cmd = { bin, 'lsp', '--stdio' }, root_dir = root })
if not id then fail('start', 'no client') end
vim.cmd('edit ' .. root .. '/models/big_spenders.sql')
vim.lsp.buf_attach_client(0, id)
local client = vim.lsp.get_client_by_id(id)
wait('initialize', 10000, function() return client.server_capabilities ~= nil and next(client.server_capabilities) ~= nil end)
ok('initialize')

-- An error typed into the buffer (not saved) is published with its code.
vim.api.nvim_buf_set_lines(0, 1, 2, false, { 'SELECT customer_idd, total_spend' })
wait('diagnostic', 10000, function() return #vim.diagnostic.get(0) > 0 end)
local d = vim.diagnostic.get(0)[1]
local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
if code ~= 'E0509' or d.lnum ~= 1 or d.col ~= 7 then fail('diagnostic', vim.inspect(d)) end
if not d.message:find('did you mean `customer_id`', 1, true) then fail('diagnostic', d.message) end
ok('diagnostic ' .. code .. ' at 2:8')

-- Fixed: the diagnostic goes away.
vim.api.nvim_buf_set_lines(0, 1, 2, false, { 'SELECT customer_id, total_spend' })
wait('diagnostic cleared', 10000, function() return #vim.diagnostic.get(0) == 0 end)
ok('diagnostic cleared')

-- Hover on a column: its type and where it comes from.
local pos = { textDocument = vim.lsp.util.make_text_document_params(), position = { line = 1, character = 22 } }
local res = vim.lsp.buf_request_sync(0, 'textDocument/hover', pos, 5000)
local hover = res and res[id] and res[id].result
local text = hover and hover.contents and hover.contents.value or ''
if not text:find('decimal(38,2)', 1, true) or not text:find("ref('customer_totals')", 1, true) then fail('hover', vim.inspect(res)) end
ok('hover: ' .. text)

-- Go to definition of ref('customer_totals'): the model's file opens.
vim.api.nvim_win_set_cursor(0, { 3, 12 })
vim.lsp.buf.definition()
wait('definition', 5000, function() return vim.api.nvim_buf_get_name(0):match('customer_totals%.sql$') ~= nil end)
ok('definition -> ' .. vim.fn.fnamemodify(vim.api.nvim_buf_get_name(0), ':t'))

-- Rename the model from a ref() to it; then write every changed buffer.
vim.cmd('edit ' .. root .. '/models/big_spenders.sql')
vim.lsp.buf_attach_client(0, id)
vim.api.nvim_win_set_cursor(0, { 3, 12 })
vim.lsp.buf.rename('spend_by_customer')
wait('rename', 5000, function()
  return vim.fn.filereadable(root .. '/models/spend_by_customer.sql') == 1
end)
vim.cmd('silent! wall')
local big = table.concat(vim.fn.readfile(root .. '/models/big_spenders.sql'), '\n')
local yml = table.concat(vim.fn.readfile(root .. '/streamform.yml'), '\n')
if not big:find("ref('spend_by_customer')", 1, true) then fail('rename', big) end
if not yml:find('spend_by_customer:\n    renamed_from: customer_totals', 1, true) then fail('rename', yml) end
if vim.fn.filereadable(root .. '/models/customer_totals.sql') == 1 then fail('rename', 'the old file is still there') end
local fx = table.concat(vim.fn.readfile(root .. '/tests/customer_totals.yml'), '\n')
if not fx:find('\nmodel: spend_by_customer\n', 1, true) then fail('rename', fx) end
ok('rename: ref(), file, fixture and streamform.yml (renamed_from)')

vim.lsp.stop_client(id)
vim.cmd('qall!')
