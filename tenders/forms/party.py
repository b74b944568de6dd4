"""Who the signed-in user speaks for, in the 2.3 form (a question's author, a claimant)."""


def party_of(user) -> dict:
    """The signed-in user's organization as a 2.3 Organization (who asks, who claims), with
    the user as its contact."""
    organization = user.organization
    return {
        "name": organization.name,
        "identifier": organization.identifier_data,
        "address": {"countryName": "Україна"},
        "contactPoint": {"name": user.get_full_name() or user.username, "email": user.email},
    }
