// Two types with the same name (trees and records share one namespace).
record Item { n: i64 }
tree Item {}
tree Leaf {}
tree Leaf {}
