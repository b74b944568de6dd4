from django.urls import path

from . import views

urlpatterns = [
    path("auctions/<str:tender_id>/", views.auction_page, name="auction-page"),
    path("auctions/<str:tender_id>/<str:lot_id>/", views.auction_page, name="auction-page"),
]
