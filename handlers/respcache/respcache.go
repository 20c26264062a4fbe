// Package respcache keeps the encoded answers the handlers cache small in memory: packed with s2,
// list items with a dictionary of their kind (Dicts).
package respcache
