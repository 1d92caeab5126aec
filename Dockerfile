# servbench's container image: the static binary alone, FROM scratch (no
# base image, so no registry is needed). Build the binary first:
#   CGO_ENABLED=0 go build -trimpath -o servbench ./cmd/servbench
#   docker build -t servbench .
# Run on the host network to reach servers on 127.0.0.1, with a volume for
# results:
#   docker run --rm --network host -v "$PWD/out:/out" servbench run redis -w a -o /out/r.json
FROM scratch
COPY servbench /servbench
ENTRYPOINT ["/servbench"]
