# Section references after docs/SPEC.md was numbered throughout (issue #26). Apply to code
# comments and docs outside docs/SPEC.md, e.g.
#   git grep -lE '§[A-Z]|Go (wire )?notes' -- ':!docs/SPEC.md' ':!docs/renumber.sed' \
#     | xargs sed -i -E -f docs/renumber.sed
# Sections 1–18 kept their numbers; only named references and references to the Go
# library's notes (not in this repository) change. Longer names come first.
s/§String column blocks/§20/g
s/§Columnar containers/§22/g
s/§Entropy-coded blocks/§21/g
s/§gRPC framing/§24/g
s/§gRPC/§24/g
s/§QPack/§19/g
s/§Integers/§3/g
s/§Floats/§4/g
s/§Strings/§6/g
s/§Arrays and maps/§7/g
s/§Data model/§8/g
s/§Extension/§9/g
s/§Value text/§11/g
s/§Strictness/§12/g
s/§Dense dialect/§14/g
s/§Shapes/§15/g
s/§Session caps/§16.1/g
s/§Header/§1/g
s/§Tags/§2/g
s/§Varints/§3.1/g
s/`docs\/SPEC.md` §Differences/`docs\/SPEC.md`, Appendix B/g
s/§Differences/Appendix B/g
# No section lists feature bits (encoder options, not wire): drop the reference.
s/, see `docs\/SPEC.md` §Options//g
# References to the Go library's notes, by the rule they stood for.
s/\(Go wire notes §2\.2\)/(`docs\/SPEC.md` §20)/g
s/Limits \(Go notes §6\)/Limits (`docs\/SPEC.md` §20)/
s/0xFFFF \(Go notes §6\)/0xFFFF (`docs\/SPEC.md` §16.1)/
s/\(Go notes §1\.2\)/(`docs\/SPEC.md` §10)/g
s/\(Go notes §1\.5 "State"\)/(`docs\/SPEC.md` §14.1)/g
s/\(Go notes §1\.5\)/(`docs\/SPEC.md` §14)/g
s/\(Go notes §1\.3\)/(`docs\/SPEC.md` §15)/g
s/\(Go wire notes §4\)/(`docs\/SPEC.md` §17.1)/g
s/\(Go wire notes$/(`docs\/SPEC.md`/
