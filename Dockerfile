# Builds one skillmatch binary: the all-in-one command (default) or a stage
# service: docker build --build-arg TARGET=services/retriever . (or
# services/frontdoor, the A2A and request-reply front door).
FROM golang:1.26 AS build
ARG TARGET=cmd/skillmatch
WORKDIR /src
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -o /out/app ./${TARGET}

FROM gcr.io/distroless/static-debian12
COPY --from=build /out/app /app
COPY examples/catalog /catalog
USER nonroot
ENTRYPOINT ["/app"]
