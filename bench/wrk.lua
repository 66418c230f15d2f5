-- wrk body script for the Sawmill benchmarks.
-- Usage: wrk -t1 -cN -dSs -s bench/wrk.lua http://127.0.0.1:PORT -- <requests-file> [api-key]
-- The requests file holds one request per line: "<path>\t<json body>". Requests go out in
-- rotation; done() prints one JSON line with the totals and the latency percentiles (µs).

local paths, bodies, n, i = {}, {}, 0, 0

function init(args)
  local file = assert(io.open(args[1], "r"), "cannot open " .. tostring(args[1]))
  for line in file:lines() do
    local tab = line:find("\t", 1, true)
    if tab then
      n = n + 1
      paths[n] = line:sub(1, tab - 1)
      bodies[n] = line:sub(tab + 1)
    end
  end
  file:close()
  assert(n > 0, "no requests in " .. args[1])
  wrk.headers["content-type"] = "application/json"
  if args[2] then wrk.headers["x-api-key"] = args[2] end
  -- Threads start at different places so they do not send the same bodies in step.
  i = (tonumber(tostring({}):match("0x(%x+)"), 16) or 0) % n
end

function request()
  i = i % n + 1
  return wrk.format("POST", paths[i], nil, bodies[i])
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '\n@@RESULT {"requests":%d,"duration_us":%d,"bytes":%d,"connect_errors":%d,"read_errors":%d,"write_errors":%d,"status_errors":%d,"timeouts":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d,"mean_us":%.1f}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end
