// Placeholder translation unit for a stage folder that has no sources yet.
