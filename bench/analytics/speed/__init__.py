"""The analytics stage at scale against a pandas reference on a seeded synthetic corpus."""
