"""The document service's paths in the OpenAPI description. Its views are plain Django views
(multipart uploads, redirects, file bodies), so their operations are written out here, beside
them, in the same terms as the views: what each takes, and each answer it can give."""

ENVELOPE = {"$ref": "#/components/schemas/ErrorEnvelope"}
KEY_ID = {"name": "KeyID", "in": "query", "required": True, "schema": {"type": "string"}}
SIGNATURE = {"name": "Signature", "in": "query", "required": True, "schema": {"type": "string"}}
DOC_ID = {"name": "doc_id", "in": "path", "required": True, "schema": {"type": "string"}}
HASH = {
    "type": "string",
    "pattern": "^md5:[0-9a-fA-F]{32}$",
    "description": "md5:<32 hex digits> of the content",
}
UPLOADED = {
    "type": "object",
    "required": ["data", "get_url"],
    "properties": {
        "data": {
            "type": "object",
            "required": ["url", "hash", "format", "title"],
            "properties": {
                "url": {"type": "string", "description": "The URL to attach to the registry"},
                "hash": {"type": "string"},
                "format": {"type": "string"},
                "title": {"type": "string"},
            },
        },
        "get_url": {"type": "string", "description": "A temporary download URL"},
    },
}
FILE_BODY = {
    "required": True,
    "content": {
        "multipart/form-data": {
            "schema": {
                "type": "object",
                "required": ["file"],
                "properties": {"file": {"type": "string", "format": "binary"}},
            }
        }
    },
}


def _error(description: str) -> dict:
    return {"description": description, "content": {"application/json": {"schema": ENVELOPE}}}


def _json(schema: dict, description: str) -> dict:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


UPLOAD_ERRORS = {
    "403": _error("No broker key, or a signature that does not match"),
    "404": _error("No such document, no file part, or no signature"),
    "405": _error("Method not allowed"),
    "413": _error("The file is larger than DOCUMENT_MAX_BYTES"),
    "422": _error("The multipart body cannot be read, or the content does not match"),
}


REGISTER = {
    "post": {
        "operationId": "registerDocument",
        "tags": ["document service"],
        "summary": "Register a document by its hash: the URL to attach and the URL to "
        "upload its content to",
        "requestBody": {
            "required": True,
            "content": {
                "application/x-www-form-urlencoded": {
                    "schema": {
                        "type": "object",
                        "required": ["hash"],
                        "properties": {"hash": HASH},
                    }
                },
                "application/json": {
                    "schema": {
                        "type": "object",
                        "required": ["data"],
                        "properties": {
                            "data": {
                                "type": "object",
                                "required": ["hash"],
                                "properties": {"hash": HASH},
                            }
                        },
                    }
                },
            },
        },
        "responses": {
            "201": _json(
                {
                    "type": "object",
                    "required": ["upload_url", "data"],
                    "properties": {
                        "upload_url": {"type": "string"},
                        "data": {
                            "type": "object",
                            "properties": {
                                "url": {"type": "string"},
                                "hash": {"type": "string"},
                            },
                        },
                    },
                },
                "Registered; upload the content to upload_url",
            ),
            "403": _error("No broker key"),
            "404": _error("No hash in the body"),
            "405": _error("Method not allowed"),
            "413": _error("The body is too large"),
            "422": _error("The hash is not md5:<32 hex digits>"),
        },
    }
}

UPLOAD = {
    "post": {
        "operationId": "uploadDocument",
        "tags": ["document service"],
        "summary": "Upload a file without registering it first",
        "requestBody": FILE_BODY,
        "responses": {"200": _json(UPLOADED, "Stored"), **UPLOAD_ERRORS},
    }
}

UPLOAD_REGISTERED = {
    "post": {
        "operationId": "uploadRegisteredDocument",
        "tags": ["document service"],
        "summary": "Upload the content of a registered document, at its signed URL",
        "parameters": [DOC_ID, KEY_ID, SIGNATURE],
        "requestBody": FILE_BODY,
        "responses": {
            "200": _json(UPLOADED, "Stored"),
            **UPLOAD_ERRORS,
            "409": _error("Another upload of this document stored its content first"),
        },
    }
}

DOWNLOAD = {
    "get": {
        "operationId": "downloadDocument",
        "tags": ["document service"],
        "summary": "The file, for a permanent or an unexpired temporary signed URL",
        "parameters": [
            DOC_ID,
            KEY_ID,
            SIGNATURE,
            {
                "name": "Expires",
                "in": "query",
                "required": False,
                "schema": {"type": "string", "pattern": "^[0-9]{1,12}$"},
                "description": "Unix seconds, on temporary URLs",
            },
        ],
        "responses": {
            "200": {
                "description": "The file, as an attachment",
                "content": {"*/*": {"schema": {}}},
            },
            "302": {"description": "Object storage: its own short-lived URL"},
            "403": _error("The signature does not match, or the URL expired"),
            "404": _error("No such document, no content yet, or no signature"),
            "405": _error("Method not allowed"),
            "410": _error("The document store has lost the content: it will not come back"),
        },
    }
}


def document_service_paths() -> dict:
    return {
        "/ds/register": REGISTER,
        "/ds/upload": UPLOAD,
        "/ds/upload/{doc_id}": UPLOAD_REGISTERED,
        "/ds/get/{doc_id}": DOWNLOAD,
    }


def add_document_service_paths(result, generator, request, public):
    """drf-spectacular postprocessing hook: the document service's plain views, described."""
    result["paths"].update(document_service_paths())
    return result
