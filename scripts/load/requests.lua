-- wrk script for one endpoint of scripts/load.sh: sends the requests of a file in turn and checks
-- every answer. Settings come from the environment:
--   LOAD_REQUESTS  the file (prepare.py): METHOD <tab> PATH <tab> BEARER or '-' <tab> JSON BODY or nothing
--   LOAD_STATUS    the status every answer must have (200)
--   LOAD_BODY_HAS  text every answer body must contain (optional)
--   LOAD_DELAY_MS  a pause before each request of a connection, for a paced run (0: none)
--   LOAD_ONCE      1: each line may be sent once only (purchases); running out counts as errors
--   LOAD_THREADS   wrk's -t (default 1)
-- At the end it prints one line for scripts/load.sh:
--   LOAD-STATS requests=… p50_us=… p99_us=… max_us=… non2xx=… connect=… read=… write=… timeout=… bad=… exhausted=… sample=…
-- where `bad` counts answers with another status or without the text (wrk's own `non2xx` counts
-- 4xx/5xx only), and `sample` is the first bad answer (status and the start of its body).

local file = os.getenv("LOAD_REQUESTS")
local expect = tonumber(os.getenv("LOAD_STATUS") or "200")
local needle = os.getenv("LOAD_BODY_HAS") or ""
local pause = tonumber(os.getenv("LOAD_DELAY_MS") or "0")
local once = os.getenv("LOAD_ONCE") == "1"

local threads = {}

function setup(thread)
  table.insert(threads, thread)
  thread:set("first", #threads)
end

-- Threads take interleaved lines (LOAD_THREADS: wrk's -t), so that no two send the same one.
local stride = tonumber(os.getenv("LOAD_THREADS") or "1")
local requests = {}
local position = 0
bad, exhausted, sample = 0, 0, ""

-- Read in init (each thread's own state): wrk sets the Host header just before calling it.
function init(args)
  for text in io.lines(file) do
    local method, path, bearer, body = text:match("^([^\t]*)\t([^\t]*)\t([^\t]*)\t(.*)$")
    if method then
      local headers = {}
      if bearer ~= "-" then headers["Authorization"] = "Bearer " .. bearer end
      if body == "" then
        body = nil
      else
        headers["Content-Type"] = "application/json"
      end
      requests[#requests + 1] = wrk.format(method, path, headers, body)
    end
  end
  assert(#requests > 0, "no requests in " .. tostring(file))
  position = (first or 1) - 1
end

function request()
  if position >= #requests then
    if once then exhausted = exhausted + 1 end
    position = position % #requests
  end
  local r = requests[position + 1]
  position = position + stride
  return r
end

function response(status, headers, body)
  if status ~= expect or (needle ~= "" and not (body and body:find(needle, 1, true))) then
    bad = bad + 1
    if sample == "" then sample = status .. " " .. string.sub(((body or ""):gsub("%s+", " ")), 1, 160) end
  end
end

if pause > 0 then
  function delay() return pause end
end

function done(summary, latency, _)
  local total_bad, total_exhausted, first_sample = 0, 0, ""
  for _, thread in ipairs(threads) do
    total_bad = total_bad + (thread:get("bad") or 0)
    total_exhausted = total_exhausted + (thread:get("exhausted") or 0)
    local s = thread:get("sample") or ""
    if first_sample == "" then first_sample = s end
  end
  local e = summary.errors
  io.write(string.format(
    "LOAD-STATS requests=%d duration_us=%d p50_us=%d p99_us=%d max_us=%d non2xx=%d connect=%d read=%d write=%d timeout=%d bad=%d exhausted=%d sample=%s\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,
    e.status, e.connect, e.read, e.write, e.timeout, total_bad, total_exhausted, first_sample))
end
