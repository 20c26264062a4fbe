// Package input turns request bodies and query strings into parameter values
// and coerces those values to the declared parameter types (docs/API.md "Parameters and bodies"-2.4).
//
// # Basics
//
// A decoded parameter value is always one of:
//
//	string          form and query values; JSON strings
//	json.Number     JSON numbers, kept as their source text so no precision is lost
//	bool            JSON true and false
//	nil             JSON null
//	[]any           JSON arrays; PHP bracket containers whose keys are all integers >= 0
//	map[string]any  JSON objects; every other PHP bracket container
//
// No other Go type appears, at any depth. The coercion functions ([Int],
// [Number], [Bool], [String], [Truthy], [List]) accept exactly this model and
// return a *[TypeError] for anything that does not fit; they never fall back to
// a default.
//
// A handler reads its parameters in three steps:
//
//  1. decode each source: [JSON] for application/json bodies, [Form] for
//     application/x-www-form-urlencoded bodies and for the query string,
//     [Multipart] for multipart/form-data bodies;
//  2. [Merge] them in precedence order: path, JSON body, form body, query string;
//  3. coerce each declared parameter with the function for its type.
//
// # Caveats
//
// JSON null is "absent" (docs/API.md "Parameters and bodies"). [JSON] keeps null members so that a
// caller can see them, but [Merge] drops them, so a null in the body neither
// sets a parameter nor hides the same name in a later source. The coercion
// functions reject nil: callers test for absence before coercing.
//
// [Form] and [Multipart] follow PHP's request-variable rules, because that is
// what the WordPress reference sees, including its name mangling:
//
//   - leading spaces of a name are removed, and a name is cut at its first NUL
//     byte (PHP handles names as C strings);
//   - in the top-level part of a name (before the first "["), "." and " "
//     become "_": "a.b=1" and "a b=1" both set "a_b";
//   - a "[" without a matching "]" is not a bracket: it and any later ".",
//     " " or "[" become "_" ("a[b=1" sets "a_b"), but only when it follows the
//     top-level name; an unterminated bracket deeper down ends the name
//     ("a[b][c=1" sets a[b]);
//   - anything after a "]" that does not open a new bracket is ignored
//     ("a[b]c=1" sets a[b]);
//   - one blank right after "[" is skipped when "]" follows it, so "a[ ]"
//     appends like "a[]";
//   - a name with more than [MaxDepth] bracket pairs is dropped together with
//     every value already stored under its top-level name, as PHP does when
//     max_input_nesting_level is exceeded;
//   - an empty top-level name ("=1", "[a]=1") is dropped.
//
// Form values are byte strings exactly as sent: no UTF-8 validation and no
// charset conversion happen here. PHP's max_input_vars (1000 by default, past
// which PHP silently ignores variables) is not applied: the body size limit
// (docs/API.md "Limits") bounds the work instead, and no parameter is lost silently.
package input
