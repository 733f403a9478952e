# Trove: one image, data in /data. Build: docker build -t trove .
FROM node:20-bookworm-slim AS build
WORKDIR /src
# better-sqlite3 compiles natively; the toolchain stays in this stage only.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY . .
# The built UI is embedded by the server, but @trove/web is only a build-time dependency
# (React and Vite stay out of the image), so its dist is copied next to the deployed server.
# The same for the packed CLI the server offers at /downloads/trove-cli.tgz.
RUN npx -y pnpm@10 install --frozen-lockfile \
 && npx -y pnpm@10 build \
 && npx -y pnpm@10 deploy --filter @trove/server --prod --legacy /app \
 && mkdir -p /app/node_modules/@trove/web /app/node_modules/trove-cli \
 && cp -r apps/web/dist apps/web/dist-path.js apps/web/package.json /app/node_modules/@trove/web/ \
 && cp -r apps/cli/dist apps/cli/tarball-path.js apps/cli/package.json /app/node_modules/trove-cli/

FROM node:20-bookworm-slim
ENV NODE_ENV=production TR_DATA_DIR=/data TR_LISTEN=:8080
# xz compresses Debian's Packages.xz indexes (format-debian runs it as a child process).
RUN apt-get update && apt-get install -y --no-install-recommends xz-utils && rm -rf /var/lib/apt/lists/*
RUN groupadd -r trove && useradd -r -g trove -d /data trove && mkdir /data && chown trove:trove /data
COPY --from=build /app /app
USER trove
VOLUME /data
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=3s CMD node -e "fetch('http://127.0.0.1:8080/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "/app/dist/main.js"]
