"""irconv-torch: the PyTorch front end (torch.export programs)."""
