-- perfls for Neovim 0.7 and later: starts `perfls serve` for Java (and .spl)
-- buffers, one client per project root, keeps code lenses fresh and offers
-- commands. Uses only APIs Neovim 0.7 has (vim.lsp.start_client,
-- vim.lsp.buf_attach_client, vim.lsp.codelens).
local M = {}

local defaults = {
  cmd = { 'perfls', 'serve' },
  filetypes = { 'java', 'spl' },
  root_markers = { 'perfls.json', 'pom.xml', 'build.gradle', 'build.gradle.kts', '.git' },
  codelens = true, -- show and refresh the "Measure" / "Check N formulas" lenses
  -- show measured figures and formula outcomes as inlay hints (Neovim 0.10+,
  -- which draws them; the server's inlayHints setting turns them off for
  -- every editor). Semantic tokens (0.9+) and code actions
  -- (vim.lsp.buf.code_action) need nothing from the plugin.
  inlay_hints = true,
  -- settings of the editor contract (alpha, interpretation, semantics,
  -- budgetSeconds, measureOnSave, javaHome, jvmArgs, cpus, violationSeverity,
  -- allowMeasuring, remote, remoteLabel, lenses: e.g. { 'measure', 'check',
  -- 'profile', 'compare', 'calibrate' }, the server's default measure and check),
  -- sent as initializationOptions and with workspace/didChangeConfiguration.
  settings = {},
  -- on_status(status) is called with every perfls/status notification
  -- ({ running, queued, message }); vim.g.perfls_status always holds the last.
  on_status = nil,
}

local config = vim.deepcopy(defaults)
local clients = {} -- root directory -> client id

-- find_root walks up from the buffer's directory to the first directory
-- holding one of the markers; without one, the buffer's directory.
local function find_root(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  local dir = vim.fn.fnamemodify(name, ':p:h')
  local start = dir
  while dir and dir ~= '' do
    for _, marker in ipairs(config.root_markers) do
      if vim.loop.fs_stat(dir .. '/' .. marker) then
        return dir
      end
    end
    local parent = vim.fn.fnamemodify(dir, ':h')
    if parent == dir then
      break
    end
    dir = parent
  end
  return start
end

-- on_attach runs once the server is initialized and the buffer attached.
-- Lenses are refreshed only from here on: on Neovim 0.7 a refresh sent
-- before the server answered initialize never completes and blocks every
-- later refresh of the buffer.
local function on_attach(_, bufnr)
  if config.inlay_hints and vim.lsp.inlay_hint and vim.lsp.inlay_hint.enable then
    -- 0.10 takes (true, { bufnr = … }); 0.10's first builds took (bufnr, true).
    if not pcall(vim.lsp.inlay_hint.enable, true, { bufnr = bufnr }) then
      pcall(vim.lsp.inlay_hint.enable, bufnr, true)
    end
  end
  if not config.codelens then
    return
  end
  vim.api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave', 'BufWritePost' }, {
    buffer = bufnr,
    group = vim.api.nvim_create_augroup('perfls_codelens_' .. bufnr, { clear = true }),
    callback = function()
      pcall(vim.lsp.codelens.refresh)
    end,
  })
  pcall(vim.lsp.codelens.refresh)
end

-- wire_settings are the settings as sent: an empty Lua table would be
-- encoded as a JSON list, so an empty one goes as an empty object.
local function wire_settings()
  if next(config.settings) == nil then
    return vim.empty_dict()
  end
  return config.settings
end

local function attach(bufnr)
  if vim.api.nvim_buf_get_name(bufnr) == '' then
    return
  end
  local root = find_root(bufnr)
  local id = clients[root]
  if not id or not vim.lsp.get_client_by_id(id) then
    local settings = wire_settings()
    id = vim.lsp.start_client({
      name = 'perfls',
      cmd = config.cmd,
      root_dir = root,
      workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
      settings = settings,
      init_options = settings,
      handlers = {
        ['perfls/status'] = function(_, result)
          vim.g.perfls_status = result
          if config.on_status then
            config.on_status(result)
          end
        end,
      },
      on_attach = on_attach,
      on_exit = function()
        clients[root] = nil
      end,
    })
    if not id then
      vim.notify('perfls: could not start ' .. table.concat(config.cmd, ' '), vim.log.levels.ERROR)
      return
    end
    clients[root] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
end

--- setup({ cmd = { 'perfls', 'serve' }, filetypes = …, root_markers = …, codelens = true, inlay_hints = true })
function M.setup(opts)
  config = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  if vim.filetype and vim.filetype.add then -- Neovim 0.7 has it; .spl files get their filetype
    pcall(vim.filetype.add, { extension = { spl = 'spl' } })
  end
  -- Buffers attach on their FileType event, which never fires while
  -- filetype detection is off (nvim -u NONE, --clean setups, a
  -- 'filetype off' after startup). Neovim turns detection on after the
  -- init file, so look once startup is done.
  local function check_filetype_detection()
    if vim.fn.exists('#filetypedetect#BufRead') == 0 then
      vim.notify("perfls: filetype detection is off, so no Java or .spl buffer will attach; add 'filetype on' to your init file", vim.log.levels.WARN)
    end
  end
  if vim.v.vim_did_enter == 1 then
    check_filetype_detection()
  else
    vim.api.nvim_create_autocmd('VimEnter', { once = true, callback = check_filetype_detection })
  end
  vim.api.nvim_create_autocmd('FileType', {
    pattern = config.filetypes,
    group = vim.api.nvim_create_augroup('perfls', { clear = true }),
    callback = function(args)
      attach(args.buf)
    end,
  })
  -- :PerflsCheck runs a code lens on the cursor line (Measure or Check the
  -- method under the cursor, chosen when there are both: this runs your
  -- code).
  vim.api.nvim_create_user_command('PerflsCheck', function()
    vim.lsp.codelens.run()
  end, { desc = 'perfls: check the formulas of the method at the cursor' })
  vim.api.nvim_create_user_command('PerflsDaemonStatus', function()
    local bin = config.cmd[1]
    vim.notify(vim.fn.system({ bin, 'daemon', 'status' }))
  end, { desc = 'perfls: show the measurement daemon' })
end

-- Exposed for tests and for users who attach buffers themselves.
M.attach = attach
M.find_root = find_root

return M
