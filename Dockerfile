# Tokenizer Playground in a container: the app on port 8501, the workspace store on a volume.
#   docker build -t tokenizer-playground .
#   docker run -p 8501:8501 -v playground-data:/data tokenizer-playground
# Several replicas on one PostgreSQL store: see README ("Running in a container").

# ---- build: compile the kernel and install the app into a virtual environment -------------------
FROM python:3.12-slim AS build
# gcc and the C library headers build the kernel (the Python headers come with the image). Not
# pinned: Debian's archive keeps only the current patch release, so a pin would break the build.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
WORKDIR /src
# The pinned dependencies first, in a layer of their own: editing the code does not reinstall them.
COPY requirements.txt ./
RUN grep -v '^\.$' requirements.txt > /tmp/pins.txt \
    && pip install -r /tmp/pins.txt
COPY . .
# The project itself (setup.py): tokenizer_core, the app and the compiled kernel. The kernel is
# optional for `pip install`, not here: the image fails to build rather than ship the slow path.
RUN pip install --no-deps . \
    && python -c "import tokenizer_kernel" \
    && tokenizer-playground --version

# ---- run: the virtual environment only, as a non-root user --------------------------------------
FROM python:3.12-slim
RUN useradd --create-home --uid 10001 --shell /usr/sbin/nologin playground \
    && mkdir -p /data \
    && chown playground:playground /data
COPY --from=build /opt/venv /opt/venv
# The workspace store (a SQLite file) and the cached files live on the volume. For several replicas,
# set TOKENIZER_PLAYGROUND_DB to one PostgreSQL URL (postgresql://user:password@host/db) instead, at
# `docker run -e` (never baked into the image: it holds a password). The default below is a path.
# hadolint ignore=DL3064
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    TOKENIZER_PLAYGROUND_DB=/data/workspaces.sqlite3 \
    TOKENIZER_PLAYGROUND_CACHE=/data/cache \
    STREAMLIT_SERVER_ADDRESS=0.0.0.0 \
    STREAMLIT_SERVER_PORT=8501 \
    STREAMLIT_SERVER_HEADLESS=true
VOLUME ["/data"]
USER 10001:10001
WORKDIR /home/playground
EXPOSE 8501
# Streamlit's own health endpoint answers "ok" once the server runs (the image has no curl); another
# port is set with -e STREAMLIT_SERVER_PORT=9000, which the check reads too.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/_stcore/health' % os.environ.get('STREAMLIT_SERVER_PORT', '8501'), timeout=4)"]
# Options after the image name go on to `streamlit run` (e.g. --theme.base dark).
ENTRYPOINT ["tokenizer-playground"]
