#!/usr/bin/env python3
"""An identify plugin that records how its references came, for the host's reference-set tests.

    reference_set_plugin.py LOG MINOR keeps|forgets

It says it speaks protocol 1.MINOR. Each identify appends a line to LOG: the number of references
that came and the reference set the request named ("-" for none). With `keeps` it keeps each named
list and resolves a name sent alone; with `forgets` it answers every name sent alone as unknown.
Its candidate is the first reference's meter, sure.
"""
import sys

from fixture_plugin import pb, serve


def main(log, minor, mode):
    kept = {}

    def answer(kind, envelope, reply, send):
        if kind != "identify":
            return False
        request = envelope.identify
        name = request.reference_set
        with open(log, "a") as file:
            file.write(f"{len(request.references)} {name or '-'}\n")
        references = list(request.references)
        if name and references and mode == "keeps":
            kept[name] = references
        elif name and not references:
            references = kept.get(name, [])
        if name and not references:
            reply.plugin_candidates.unknown_reference_set = True
        else:
            reply.plugin_candidates.candidates.add(meter=references[0].meter, score=1, confidence=1)
        return True

    return serve("reference-sets", [pb.ROLE_IDENTIFY], answer, minor=minor)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2]), sys.argv[3]))
