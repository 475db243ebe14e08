// set1.comp: a kernel outside the q4vk interface (it uses descriptor set 1), which
// the probe pass must refuse rather than clash with.
#version 450

layout(local_size_x = 1) in;

layout(std430, set = 1, binding = 0) buffer B { float b[]; };

void main() { b[0] = 1.0; }
