"""The packaged SST-2 demo sample (see PROVENANCE.md); load it with `load_dataset("sst2_sample")`."""
