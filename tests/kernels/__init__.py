"""The answers' CUDA and Triton kernels, compiled and checked against references on the CPU."""
