// A base type that does not exist, or is a record.
record Border { size: i64 }
tree Box : Element {}
tree Frame : Border {}
