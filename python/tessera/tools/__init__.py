"""Host-side tools, as triton.tools: tessera.tools.tensor_descriptor.TensorDescriptor."""
