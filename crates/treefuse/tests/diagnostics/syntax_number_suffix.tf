// Number literals take no suffix.
global N: i64 = 12px;
