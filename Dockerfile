# syntax=docker/dockerfile:1
# Untested here (no Docker engine on our build machines); built to the same steps as .ci/run.

# --- build: Bun comes from npm, like everywhere else in this repo -------------
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
# No install scripts but bun's own (it fetches nothing: the binary ships in its platform package).
# npm 10 in this image runs every script; swagger-ui-dist's @scarf/scarf would report the install
# over the network. package.json's scarfSettings and DO_NOT_TRACK opt out as well, belt and braces.
ENV DO_NOT_TRACK=1 SCARF_ANALYTICS=false
RUN npm ci --no-audit --no-fund --ignore-scripts && npm rebuild bun
COPY . .
RUN npm run build

# --- run: the single compiled binary on a glibc slim base, as a non-root user --
FROM debian:bookworm-slim
RUN groupadd --system --gid 10001 cfgsync \
	&& useradd --system --uid 10001 --gid cfgsync --home-dir /data --shell /usr/sbin/nologin cfgsync \
	&& mkdir -p /data \
	&& chown cfgsync:cfgsync /data \
	&& chmod 0700 /data
COPY --from=build /src/dist/cfgsync-server /usr/local/bin/cfgsync-server
USER cfgsync
WORKDIR /data
ENV CFGSYNC_DATA_DIR=/data \
	CFGSYNC_HOST=0.0.0.0 \
	CFGSYNC_PORT=8787
# The database and master.key live here: mount a volume and back it up.
VOLUME ["/data"]
EXPOSE 8787
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 CMD ["cfgsync-server", "healthcheck"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["cfgsync-server"]
CMD ["serve"]
