# fake_worker.py: a stand-in for the WebGPU worker (gpu/webgpu/worker.mjs) that speaks
# the frame protocol (docs/webgpu.md) on fds 3 and 4 but misbehaves as FAKE_WORKER says,
# so that the harness's reading of the worker is tested without Node.js or a GPU
# (test_worker_frames.sh runs it as Q4CTS_NODE=python3, with this file as worker.mjs).
#   FAKE_WORKER=protocol2 | no-protocol | bad-limit | huge-limit | nan | dup-key |
#               big-blob | long-blob
import json, os, struct, sys

MAGIC = 0x47573451
mode = os.environ.get('FAKE_WORKER', '')


def write_all(data):
    while data:
        data = data[os.write(4, data):]


def send(kind, header, blobs=(), lens=None):
    h = header.encode() if isinstance(header, str) else header
    out = struct.pack('<IIII', MAGIC, kind, len(h), len(blobs)) + h
    for i, b in enumerate(blobs):
        out += struct.pack('<Q', lens[i] if lens else len(b)) + b
    write_all(out)


def read(n):
    buf = b''
    while len(buf) < n:
        chunk = os.read(3, n - len(buf))
        if not chunk:
            sys.exit(0)
        buf += chunk
    return buf


def recv():
    _, kind, json_len, n_blobs = struct.unpack('<IIII', read(16))
    header = json.loads(read(json_len))
    blobs = []
    for _ in range(n_blobs):
        (n,) = struct.unpack('<Q', read(8))
        blobs.append(read(n))
    return kind, header, blobs


hello = {"protocol": 1, "node": "v0-fake", "webgpu": "0-fake",
         "adapter": {"vendor": "fake", "architecture": "none", "device": "", "description": "fake adapter"},
         "features": [],
         "limits": {"maxStorageBufferBindingSize": 134217728, "maxBufferSize": 268435456,
                    "maxComputeWorkgroupsPerDimension": 65535, "maxComputeWorkgroupStorageSize": 16384,
                    "maxComputeInvocationsPerWorkgroup": 256},
         "timestamps": False}
text = json.dumps(hello)
if mode == 'protocol2':
    text = text.replace('"protocol": 1', '"protocol": 2')
elif mode == 'no-protocol':
    text = text.replace('"protocol": 1, ', '')
elif mode == 'bad-limit':
    text = text.replace('"maxComputeWorkgroupsPerDimension": 65535', '"maxComputeWorkgroupsPerDimension": -5')
elif mode == 'huge-limit':
    text = text.replace('134217728', '1e300')
elif mode == 'nan':
    text = text.replace('65535', 'NaN')
elif mode == 'dup-key':
    text = text.replace('"protocol": 1', '"protocol": 2, "protocol": 1')
send(1, text)
while True:
    kind, header, blobs = recv()
    if kind == 4:   # bye
        sys.exit(0)
    if kind != 2:   # check
        send(3, '{"status": "ok"}')
        continue
    outs = [b for b, spec in zip(blobs, header['buffers']) if spec['out']]
    if mode == 'big-blob':   # a length of 2^62, and no bytes: the harness must refuse it
        send(3, '{"status": "ok", "gpu_ms": 1}', [b''] * len(outs), [1 << 62] * len(outs))
    elif mode == 'long-blob':   # one byte longer than the longest buffer sent
        longest = max(len(b) for b in blobs)
        send(3, '{"status": "ok", "gpu_ms": 1}', [b''] * len(outs), [longest + 1] * len(outs))
    else:
        send(3, '{"status": "ok", "gpu_ms": 1}', outs)
