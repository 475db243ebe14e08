// probe_atomic.comp: atomics on a storage buffer for the probe pass's tests: an
// atomicAdd (OpAtomicIAdd) and an atomicStore (OpAtomicStore) are access sites.
#version 450
#extension GL_KHR_memory_scope_semantics : require

layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) buffer Counts { uint count[]; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    atomicAdd(count[i], 1u);
    atomicStore(count[i + 1u], 7u, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
}
