"""The claims of the 2.3 API: view sets (views.py) and representations (serializers.py)."""
