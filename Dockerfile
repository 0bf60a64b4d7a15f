# pmdata image: one image, three roles (api, worker, scheduler) chosen by the command.
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production \
    UV_THREADPOOL_SIZE=8 \
    HOST=0.0.0.0 \
    PMDATA_DATA_DIR=/var/lib/pmdata
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY bin ./bin
COPY core ./core
COPY schemas ./schemas
COPY ingest ./ingest
COPY jobs ./jobs
COPY analytics ./analytics
COPY api ./api
COPY sim ./sim
COPY tsconfig.json ./
RUN mkdir -p /var/lib/pmdata && chown node:node /var/lib/pmdata
USER node
EXPOSE 8080
ENTRYPOINT ["node", "bin/pmdata.js"]
CMD ["up"]
